/** How to send a first execution to this dashboard's API: a curl, and verl's tool setting. */
export function FirstExecution({ apiUrl }: { apiUrl: string }) {
  return (
    <>
      <pre className="code">{`curl -s ${apiUrl}/run_code -H 'content-type: application/json' \\
  -d '{"code": "print(1)", "language": "python"}'`}</pre>
      <p>
        From verl, set the SandboxFusion tool&apos;s <code>sandbox_fusion_url</code> to{' '}
        <code>{apiUrl}/run_code</code>.
      </p>
    </>
  );
}
