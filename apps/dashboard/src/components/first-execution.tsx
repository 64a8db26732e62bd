/** The API as a page shows it: its address, and whether it asks for FUSEBOX_API_TOKEN (never the token). */
export interface ApiAddress {
  url: string;
  tokenRequired: boolean;
}

/** How to send a first execution to this dashboard's API: a curl, and verl's tool setting. */
export function FirstExecution({ api }: { api: ApiAddress }) {
  const auth = api.tokenRequired ? ` \\\n  -H "authorization: Bearer $FUSEBOX_API_TOKEN"` : '';
  return (
    <>
      <pre className="code">{`curl -s ${api.url}/run_code -H 'content-type: application/json'${auth} \\
  -d '{"code": "print(1)", "language": "python"}'`}</pre>
      <p>
        From verl, set the SandboxFusion tool&apos;s <code>sandbox_fusion_url</code> to{' '}
        <code>{api.url}/run_code</code>.
      </p>
      {api.tokenRequired ? (
        <p>
          This API requires <code>FUSEBOX_API_TOKEN</code>, and verl&apos;s SandboxFusion tool sends no token:
          its calls get 401. Serve verl from a Fusebox without a token, bound to a private address.
        </p>
      ) : null}
    </>
  );
}
