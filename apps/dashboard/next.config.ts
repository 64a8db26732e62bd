import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The dashboard reads the API's router types, and bundles its two pure search helpers (search-query and
  // match-ranges) so the browser marks matches by the server's rules.
  transpilePackages: ['@fusebox/api'],
};

export default config;
