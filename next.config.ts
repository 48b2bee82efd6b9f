import type { NextConfig } from 'next';
import { SECURITY_HEADERS } from './lib/studio/auth/security-headers';

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files it loads from its own package folder; postgres.js opens sockets.
  // Both must run from node_modules, not from the server bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
  poweredByHeader: false,
  // CI checks the types of the whole repository first (npm run typecheck: `next typegen`, then tsc over
  // everything, Next's generated route types included) and says so with GNL_TYPES_CHECKED=1: the build
  // then skips its own second pass over the same files (30.7 s of a 4-minute build here).
  typescript: { ignoreBuildErrors: process.env.GNL_TYPES_CHECKED === '1' },
  // Every response, static files included, forbids framing and sniffing (lib/studio/auth/security-headers.ts);
  // pages get their nonce policy from proxy.ts on top.
  async headers() {
    return [{ source: '/:path*', headers: [...SECURITY_HEADERS] }];
  },
};

export default nextConfig;
