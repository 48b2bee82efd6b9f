/**
 * A throwaway Postgres cluster of the test's own (initdb + pg_ctl on a free port, data in a temp folder),
 * so a test can restart or stop the server mid-run without touching the shared server on 5432. As root
 * the binaries run as the postgres user (initdb refuses root). Counts every restart and stop.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const clusterTotals = { clusters: 0, restarts: 0, stops: 0 };

/** The newest installed server's bin folder (Debian's /usr/lib/postgresql/<major>/bin). */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? path.join(root, majors[0], 'bin') : undefined;
}

export interface PrivateCluster {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** `pg_ctl restart -m fast`: every connection is closed, the server is back when this resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediate) and deletes its folder. */
  destroy(): Promise<void>;
  log(): string;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bin = postgresBinaries();
  if (!bin) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql/*/bin: cannot create a private cluster.');
  const dir = mkdtempSync(path.join(tmpdir(), 'gnl-faults-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, postgresUid(), postgresGid());
  const as = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  const port = await freePort();
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c max_connections=200`;
  const ctl = (args: string[]) => as('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', ...args]);
  await ctl(['start']);
  clusterTotals.clusters += 1;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await ctl(['restart', '-m', 'fast']);
      clusterTotals.restarts += 1;
    },
    async stop() {
      await ctl(['stop', '-m', 'fast']);
      clusterTotals.stops += 1;
    },
    async start() {
      await ctl(['start']);
    },
    async destroy() {
      await ctl(['stop', '-m', 'immediate']).catch(() => undefined); // already stopped is fine
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}

function postgresUid(): number {
  return idOf('passwd');
}
function postgresGid(): number {
  return idOf('group');
}
function idOf(file: 'passwd' | 'group'): number {
  const line = readFileSync(`/etc/${file}`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error(`No postgres entry in /etc/${file}: cannot run the server binaries as the postgres user.`);
  return Number(line.split(':')[2]);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
