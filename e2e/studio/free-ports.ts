/**
 * Free loopback ports, found synchronously (playwright.config.ts is loaded synchronously, and once in
 * the runner: its workers inherit the environment it sets, so every process agrees on the ports).
 * A child opens all of them at once on port 0, so the kernel hands out distinct free ones, and closes
 * them before it prints. A developer's Studio (3000) or demo service (4010) is never one of them.
 */
import { execFileSync } from 'node:child_process';

const OPEN_AND_PRINT = `
const net = require('node:net');
const n = Number(process.argv[1]);
const servers = Array.from({ length: n }, () => net.createServer());
Promise.all(servers.map((s) => new Promise((ok, fail) => { s.once('error', fail); s.listen(0, '127.0.0.1', ok); })))
  .then(() => { const ports = servers.map((s) => s.address().port); return Promise.all(servers.map((s) => new Promise((ok) => s.close(ok)))).then(() => ports); })
  .then((ports) => process.stdout.write(JSON.stringify(ports)), (error) => { console.error(error); process.exit(1); });
`;

export function freePortsSync(count: number): number[] {
  const out = execFileSync(process.execPath, ['-e', OPEN_AND_PRINT, String(count)], { encoding: 'utf8' });
  const ports: unknown = JSON.parse(out);
  if (!Array.isArray(ports) || ports.length !== count || !ports.every((p) => Number.isInteger(p) && p > 0)) {
    throw new Error(`free-ports: expected ${count} ports, got ${out}`);
  }
  return ports as number[];
}
