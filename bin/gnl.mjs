#!/usr/bin/env node
// The `gnl` command (npx gnl, npm run gnl -- …): runs the TypeScript entry lib/cli/main.ts through tsx,
// in this process, with the project's tsconfig (its @/ paths) wherever it is started from.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../lib/cli/main.ts');
const code = await main(process.argv);
process.exitCode = code;
// Everything is closed by now; should a stray handle keep the event loop alive, do not hang a script.
setTimeout(() => process.exit(code), 2_000).unref();
