import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files it loads from its own package folder; postgres.js opens sockets.
  // Both must run from node_modules, not from the server bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
  experimental: {
    // GNL's errors are recognised by `error.name`, which equals the class name; a minified server bundle
    // renames the classes (SideEffectRetryBlockedError becomes `i`). Server code is not shipped to
    // browsers, so there is little to gain from minifying it, and stack traces stay readable.
    serverMinification: false,
  },
};

export default nextConfig;
