import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files it loads from its own package folder; postgres.js opens sockets.
  // Both must run from node_modules, not from the server bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
};

export default nextConfig;
