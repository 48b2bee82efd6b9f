/**
 * A pg_auto_failover formation of the test's own on loopback (Debian's postgresql-<major>-auto-failover):
 * a monitor, a primary and a secondary with synchronous replication, each a real `pg_autoctl ... --run`
 * service run as the postgres user (pg_autoctl refuses root) in a process group of its own, with its
 * data and its configuration (XDG_*) in a temp folder. `kill(node)` is the node's machine dying: SIGKILL
 * to its postmaster and to every process of its group (keeper, backends). The monitor's timeouts are cut
 * from tens of seconds to about one (see TIMEOUTS) so a failover takes seconds; the settings a deployment
 * uses instead are in docs/operations.md#failover.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freePort } from '@/tests/support/free-port';
import { postgresBinaries } from './private-cluster';

/** pg_autoctl, when Debian's package is installed (with a server of a major it supports). */
export function pgAutoctl(): string | undefined {
  const bin = postgresBinaries();
  if (!bin || !existsSync('/usr/bin/pg_autoctl')) return undefined;
  return existsSync(path.join(bin, '..', 'lib', 'pgautofailover.so')) ? '/usr/bin/pg_autoctl' : undefined;
}

/**
 * The monitor's timing (pgautofailover.* settings, sighup): a node unheard of for 2 s after a failed
 * health check (checks every second) is failed over, and the promoted node takes writes 3 s after the
 * old primary was last heard of, not 30. GNL's own window for a process to record an outcome it saw
 * (RunSession.retakeWithinMs, 30 s) must stay above the sum.
 */
const TIMEOUTS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.node_considered_unhealthy_timeout': 2000,
  'pgautofailover.primary_demote_timeout': 3000,
};

export interface FormationNode {
  name: 'a' | 'b';
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/test (this node only) */
  url: string;
  child: ChildProcess;
  alive: boolean;
}

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
}

export interface Formation {
  monitorUrl: string;
  nodes: FormationNode[];
  /** Both nodes, the writable one first whatever it is: postgres://…@127.0.0.1:A,127.0.0.1:B/test?target_session_attrs=primary */
  url: string;
  /** What the monitor says of each node. */
  states(): Promise<NodeState[]>;
  /** The node the monitor has as primary (reported and assigned), if one. */
  primary(): Promise<FormationNode | undefined>;
  /** Waits until `name` is the writable primary (reported state primary or wait_primary and taking writes). */
  waitForPrimary(name: 'a' | 'b', timeoutMs?: number): Promise<number>;
  /** SIGKILL to the node's postmaster and to every process of its group: the node's machine dies. */
  kill(name: 'a' | 'b'): void;
  /** What each pg_autoctl service printed. */
  logs(): Record<string, string>;
  destroy(): Promise<void>;
}

export async function startFormation(): Promise<Formation> {
  const bin = postgresBinaries();
  const autoctl = pgAutoctl();
  if (!bin || !autoctl) throw new Error('pg_auto_failover is not installed: apt-get install postgresql-15-auto-failover (the major of the installed server).');
  const dir = mkdtempSync(path.join(tmpdir(), 'gnl-failover-'));
  const asRoot = process.getuid?.() === 0;
  const [uid, gid] = asRoot ? [idOf('passwd'), idOf('group')] : [-1, -1];
  for (const sub of ['config', 'share', 'run']) mkdirSync(path.join(dir, sub));
  if (asRoot) for (const sub of ['', 'config', 'share', 'run']) chownSync(path.join(dir, sub), uid, gid);
  const env: Record<string, string> = {
    PATH: `${bin}:/usr/bin:/bin`,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'share'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
    PG_CONFIG: path.join(bin, 'pg_config'),
    LANG: 'C.UTF-8',
  };
  const logs: Record<string, string> = {};
  const children: ChildProcess[] = [];
  const service = (name: string, args: string[]): ChildProcess => {
    const argv = [autoctl, ...args, '--run'];
    const child = asRoot
      ? spawn('runuser', ['-u', 'postgres', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], {
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(argv[0] as string, argv.slice(1), { detached: true, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    logs[name] = '';
    for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', (chunk: string) => (logs[name] += chunk));
    children.push(child);
    return child;
  };
  const monitorPort = await freePort();
  const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
  const common = ['--hostname', '127.0.0.1', '--listen', '127.0.0.1', '--auth', 'trust', '--no-ssl'];
  const nodes: FormationNode[] = [];
  let admin: postgres.Sql | undefined;
  const destroy = async () => {
    await admin?.end({ timeout: 1 }).catch(() => undefined);
    for (const child of children) killGroup(child);
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    // A postmaster outlives its keeper only when it was not in the group (it always is): kill by its pid file too.
    for (const sub of ['monitor', 'a', 'b']) killPostmaster(path.join(dir, sub));
    // A postmaster's children each run in a session of their own, in its data folder; the monitor's health-check
    // worker outlived its killed postmaster (seen after a CI run: it and the logger, 30 minutes on). None may stay.
    killProcessesIn(dir);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const left = processesIn(dir);
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) throw new Error(`pg_auto_failover: processes still work in the formation's folder after SIGKILL: ${left.join(', ')}`);
  };
  try {
    service('monitor', ['create', 'monitor', '--pgdata', path.join(dir, 'monitor'), '--pgport', String(monitorPort), ...common]);
    admin = postgres(`postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`, { max: 1, onnotice: () => {}, connect_timeout: 2 });
    const monitor = admin;
    await poll(
      'the monitor',
      async () => ((await monitor`select 1 from pg_extension where extname = 'pgautofailover'`.catch(() => [])).length > 0 ? true : undefined),
      60_000,
      logs,
    );
    for (const [name, value] of Object.entries(TIMEOUTS)) await monitor.unsafe(`alter system set ${name} = ${value}`);
    await monitor`select pg_reload_conf()`;
    const states = async (): Promise<NodeState[]> =>
      (
        await monitor<
          NodeState[]
        >`select nodename as name, nodeport as port, reportedstate::text as reported, goalstate::text as assigned from pgautofailover.node order by nodeid`
      ).slice();
    const startNode = async (name: 'a' | 'b') => {
      const port = await freePort();
      const child = service(name, [
        'create',
        'postgres',
        '--pgdata',
        path.join(dir, name),
        '--pgport',
        String(port),
        '--name',
        name,
        '--dbname',
        'test',
        '--monitor',
        monitorUrl,
        ...common,
      ]);
      const node: FormationNode = { name, port, url: `postgres://postgres@127.0.0.1:${port}/test`, child, alive: true };
      child.once('exit', () => (node.alive = false));
      nodes.push(node);
      return node;
    };
    const a = await startNode('a');
    await poll(
      'node a as the single primary',
      async () => ((await states()).some((s) => s.name === 'a' && s.reported === 'single') ? true : undefined),
      60_000,
      logs,
    );
    await startNode('b');
    // The standby's base backup waits for a checkpoint, spread over minutes by default: ask for one now.
    const writer = postgres(a.url, { max: 1, onnotice: () => {}, connect_timeout: 2 });
    try {
      await poll(
        'node b as a synchronous secondary',
        async () => {
          const now = await states();
          if (now.some((s) => s.name === 'b' && s.reported === 'secondary') && now.some((s) => s.name === 'a' && s.reported === 'primary')) {
            const [row] = await writer<{ names: string }[]>`select current_setting('synchronous_standby_names') as names`;
            return row?.names ? true : undefined;
          }
          await writer`checkpoint`.catch(() => undefined);
          return undefined;
        },
        90_000,
        logs,
      );
    } finally {
      await writer.end({ timeout: 1 });
    }
    const byName = (name: string) => nodes.find((n) => n.name === name) as FormationNode;
    return {
      monitorUrl,
      nodes,
      url: `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}/test?target_session_attrs=primary`,
      states,
      async primary() {
        const found = (await states()).find((s) => s.reported === 'primary' && s.assigned === 'primary');
        return found ? byName(found.name) : undefined;
      },
      async waitForPrimary(name, timeoutMs = 60_000) {
        const t0 = performance.now();
        const node = byName(name);
        const probe = postgres(node.url, { max: 1, onnotice: () => {}, connect_timeout: 1 });
        try {
          await poll(
            `node ${name} as the writable primary`,
            async () => {
              const [row] = await probe<
                { writable: boolean }[]
              >`select not pg_is_in_recovery() and current_setting('default_transaction_read_only') = 'off' as writable`.catch(
                () => [] as { writable: boolean }[],
              );
              return row?.writable ? true : undefined;
            },
            timeoutMs,
            logs,
          );
        } finally {
          await probe.end({ timeout: 1 });
        }
        return Math.round(performance.now() - t0);
      },
      kill(name) {
        const node = byName(name);
        killPostmaster(path.join(dir, name));
        killGroup(node.child);
        killProcessesIn(path.join(dir, name)); // the machine dies: its postmaster's children too
      },
      logs: () => ({ ...logs }),
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** The pids of the processes whose working folder is `dir` or beneath it (Linux's /proc). */
function processesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${entry}/cwd`).replace(/ \(deleted\)$/, '');
    } catch {
      continue; // gone, or not ours to read
    }
    if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(entry));
  }
  return found;
}

function killProcessesIn(dir: string): void {
  for (const pid of processesIn(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

function killPostmaster(pgdata: string): void {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // not running
  }
}

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, logs: Record<string, string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const tails = Object.entries(logs).map(([name, text]) => `--- ${name}\n${text.split('\n').slice(-15).join('\n')}`);
      throw new Error(`pg_auto_failover: gave up waiting for ${what} after ${timeoutMs} ms\n${tails.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function idOf(file: 'passwd' | 'group'): number {
  const line = readFileSync(`/etc/${file}`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error(`No postgres entry in /etc/${file}: pg_autoctl must run as the postgres user.`);
  return Number(line.split(':')[2]);
}
