/**
 * The database fault: the explorer terminates THIS process's hold session (application_name
 * gnl-holds) with pg_terminate_backend, as an idle_session_timeout, a failover or an operator would.
 * Other processes (the other schedules running beside it, other suites on the same server) keep
 * theirs: the session is found by its client port, one of this process's own TCP sockets to the server's
 * port (Linux /proc). Only those: a socket of this process to another service (the model server, the
 * outside world) may have the same local port as another process's session to the server.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type postgres from 'postgres';

/** The local ports of this process's TCP sockets (to `remotePort` only, when given). */
export function ownTcpPorts(remotePort?: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) inodes.add(m[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length <= 9 || !inodes.has(cols[9] as string)) continue;
      const remote = Number.parseInt((cols[2] as string).split(':').at(-1) as string, 16);
      if (remotePort === undefined || remote === remotePort) ports.push(Number.parseInt((cols[1] as string).split(':').at(-1) as string, 16));
    }
  }
  return ports;
}

/** Terminates this process's gnl-holds sessions to the server on `serverPort`; returns how many. */
export async function terminateOwnHoldSessions(sql: postgres.Sql, serverPort: number): Promise<number> {
  const ports = ownTcpPorts(serverPort);
  const rows = await sql.unsafe(
    `select pg_terminate_backend(pid) as gone from pg_stat_activity
      where application_name = 'gnl-holds' and pid <> pg_backend_pid() and datname = current_database() and client_port = any($1::int[])`,
    [ports],
  );
  return rows.filter((r) => r.gone === true).length;
}
