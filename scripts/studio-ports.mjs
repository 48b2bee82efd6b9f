/**
 * The ports `npm run studio` listens on, chosen before anything starts (issue 32): the Studio's PORT
 * (default 3000) and the demo service's GNL_DEMO_SERVICE_PORT (default 4010).
 * - A port set explicitly and taken: refused, in one line naming the variable and a free port to use.
 * - A default port taken: the next free one (up to 20 further), said in one line.
 * - The demo port taken by the demo service itself (an earlier Studio's, still running: its /health says
 *   `service: "gnl-demo-outside-service"`): used as it is. Taken by anything else: never used (a foreign
 *   process would be counted as the outside world).
 */
import { createServer } from 'node:net';

export const DEMO_SERVICE_ID = 'gnl-demo-outside-service';

/** Whether `port` can be listened on at `host` now. */
export function portFree(host, port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host, port: Number(port), exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

async function nextFree(host, from) {
  for (let port = from; port < from + 20; port++) if (await portFree(host, port)) return port;
  return undefined;
}

/**
 * `{ port, note? }` to listen on, or `{ error }` (one line) when the explicit port is taken or none is free.
 * `explicit`: the variable's value when the person set it.
 */
export async function choosePort({ host, explicit, fallback, variable, what }) {
  const wanted = Number(explicit ?? fallback);
  if (await portFree(host, wanted)) return { port: wanted };
  const free = await nextFree(host, wanted + 1);
  if (explicit !== undefined) {
    return { error: `${what} cannot listen on ${host}:${wanted}: another process holds it. Stop it, or start with ${variable}=${free ?? '<a free port>'}.` };
  }
  if (free === undefined) return { error: `${what} finds ports ${wanted} to ${wanted + 20} all taken; set ${variable} to a free one.` };
  return { port: free, note: `port ${wanted} is taken; ${what} uses ${free} (set ${variable} to choose).` };
}

/** What listens on the demo port: 'ours' (the demo service answered as itself), or 'foreign'. */
export async function demoServiceAt(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    const body = await response.json();
    return body?.service === DEMO_SERVICE_ID ? 'ours' : 'foreign';
  } catch {
    return 'foreign';
  }
}
