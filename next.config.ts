import type { NextConfig } from 'next';
import { SECURITY_HEADERS } from './lib/studio/auth/security-headers';

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files it loads from its own package folder; postgres.js opens sockets.
  // Both must run from node_modules, not from the server bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
  poweredByHeader: false,
  // Every response, static files included, forbids framing and sniffing (lib/studio/auth/security-headers.ts);
  // pages get their nonce policy from proxy.ts on top.
  async headers() {
    return [{ source: '/:path*', headers: [...SECURITY_HEADERS] }];
  },
};

export default nextConfig;
