import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The dashboard reads the API's types from the workspace; nothing from it is bundled at run time.
  transpilePackages: ['@fusebox/api'],
};

export default config;
