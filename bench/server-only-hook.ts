/**
 * Lets the benchmark import the Studio's server modules (lib/studio/reads/runs.ts starts with
 * `import 'server-only'`, Next's marker, which outside Next is not installed as a package): the marker
 * resolves to Next's own empty module, as on the server and as vitest.config.ts maps it.
 */
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './children';

const empty = pathToFileURL(path.join(ROOT, 'node_modules/next/dist/compiled/server-only/empty.js')).href;
const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'server-only') return { url: ${JSON.stringify(empty)}, shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
