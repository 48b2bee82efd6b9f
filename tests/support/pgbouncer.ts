/**
 * Debian's PgBouncer in front of the test Postgres, as a real child process with a config of the test's
 * own (a temp folder, a free port, trust auth to 127.0.0.1:5432): `pool_mode` session or transaction.
 * PgBouncer refuses to run as root, so as root it is started with `-u postgres` (it drops to that user;
 * its folder is that user's). `.ci/run` installs it (`apt-get install pgbouncer`); without it, outside CI,
 * the suites that need it report themselves skipped, and with CI=true its absence fails the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((file) => existsSync(file));

if (process.env.CI === 'true' && !PGBOUNCER)
  throw new Error('CI=true but PgBouncer is not installed (apt-get install pgbouncer): the pooler suites must run in CI.');

export interface PgBouncer {
  /** A connection string for `database` through the pooler. */
  url: string;
  log(): string;
  close(): Promise<void>;
}

export async function startPgBouncer(args: { serverUrl: string; mode: 'session' | 'transaction'; poolSize?: number }): Promise<PgBouncer> {
  if (!PGBOUNCER) throw new Error('PgBouncer is not installed (apt-get install pgbouncer)');
  const server = new URL(args.serverUrl);
  const database = server.pathname.slice(1) || 'postgres';
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'gnl-pgbouncer-'));
  const port = await freePort();
  const ini = path.join(dir, 'pgbouncer.ini');
  const logfile = path.join(dir, 'pgbouncer.log');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = host=${server.hostname} port=${server.port || 5432} dbname=${database} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${args.mode}`,
      `default_pool_size = ${args.poolSize ?? 4}`,
      'max_client_conn = 200',
      // What postgres.js sends at startup; GNL's own `options` are left to its fallback (postgres-storage.ts).
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${logfile}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const pg = userInfo({ encoding: 'utf8' }).username === 'postgres' ? undefined : postgresIds();
    if (pg) for (const file of [dir, ini, path.join(dir, 'users.txt')]) chownSync(file, pg.uid, pg.gid);
  }
  const child: ChildProcess = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'postgres'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const log = () => `${output}${existsSync(logfile) ? readFileSync(logfile, 'utf8') : ''}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${log()}`);
    if (await accepts(port)) break;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within 15 s: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    log,
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
