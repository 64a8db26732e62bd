/**
 * The endpoints SandboxFusion's own Python SDK defaults to, read from the same environment variables so a
 * rollout job configured for it works unchanged. This is the only place the package reads `process.env`.
 */
export function defaultEndpoints(): { endpoint: string; datasetEndpoint: string } {
  const endpoint = process.env.SANDBOX_FUSION_ENDPOINT || 'http://localhost:8080';
  return { endpoint, datasetEndpoint: process.env.SANDBOX_FUSION_DATASET_ENDPOINT || endpoint };
}
