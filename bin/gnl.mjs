#!/usr/bin/env node
// The `gnl` command (npx gnl, npm run gnl -- …): runs the TypeScript entry lib/cli/cli-entry.ts through
// tsx, in this process, with the project's tsconfig (its @/ paths) wherever it is started from.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('../lib/cli/cli-entry.ts');
