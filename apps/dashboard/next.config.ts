import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The dashboard reads the API's router types, and bundles the rollout search's pure helpers
  // (`@fusebox/rollouts/query`) so the browser marks matches by the server's rules.
  transpilePackages: ['@fusebox/api-router', '@fusebox/rollouts'],
};

export default config;
