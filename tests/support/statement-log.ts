/**
 * Counts what a storage really sends to its database, on the real drivers (no mock in between):
 * - Postgres: every statement postgres.js builds (its `debug` hook) and every write to the sockets
 *   of the storage's connections, by role (the connection's application_name: `gnl` the pool,
 *   `gnl-holds` the side session, `gnl-listen` the listener). On a path where each statement waits
 *   for its answer before the next is sent, a socket write is a round trip.
 * - PGlite: every call into the engine (`query`, `exec`, `transaction` on the real instance).
 * `mark(label)` cuts the log into phases.
 */
import net from 'node:net';
import type postgres from 'postgres';
import { type PGliteStorage, PostgresStorage } from '@/lib/durable/storage';

export type Entry = { kind: 'statement'; role: string; text: string } | { kind: 'round-trip'; role: string } | { kind: 'mark'; label: string };

export class StatementLog {
  readonly entries: Entry[] = [];

  mark(label: string): void {
    this.entries.push({ kind: 'mark', label });
  }

  /** What happened between the (last) mark `from` and the next mark. */
  between(from: string, role = 'gnl'): { statements: string[]; roundTrips: number } {
    const start = this.entries.findLastIndex((e) => e.kind === 'mark' && e.label === from);
    if (start < 0) throw new Error(`no mark "${from}"`);
    const next = this.entries.findIndex((e, i) => i > start && e.kind === 'mark');
    const slice = this.entries.slice(start + 1, next < 0 ? undefined : next);
    return {
      statements: slice.flatMap((e) => (e.kind === 'statement' && e.role === role ? [summarize(e.text)] : [])),
      roundTrips: slice.filter((e) => e.kind === 'round-trip' && e.role === role).length,
    };
  }
}

/** A PostgresStorage whose connections are counted. */
export function countedPostgres(connectionString: string, log: StatementLog, options: { max?: number } = {}): PostgresStorage {
  const clientOptions = {
    socket: (o: { host: string[]; port: number[]; connection: { application_name: string } }) =>
      new Promise<net.Socket>((resolve, reject) => {
        const role = o.connection.application_name;
        const socket = net.connect({ host: o.host[0] as string, port: o.port[0] as number });
        const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
        (socket as unknown as { write: (...a: unknown[]) => boolean }).write = (...a: unknown[]) => {
          log.entries.push({ kind: 'round-trip', role });
          return write(...a);
        };
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      }),
    debug: (_connection: number, text: string) => void log.entries.push({ kind: 'statement', role: roleOf(text), text }),
  };
  return new PostgresStorage({ connectionString, max: options.max, clientOptions: clientOptions as unknown as postgres.Options<never> });
}

/** Wraps the storage's real PGlite instance so each call into the engine is logged (role `gnl`). */
export async function countPGlite(storage: PGliteStorage, log: StatementLog): Promise<void> {
  const pglite = (await storage.pglite()) as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['query', 'exec', 'transaction'] as const) {
    const real = pglite[method]?.bind(pglite) as (...a: unknown[]) => unknown;
    pglite[method] = (...a: unknown[]) => {
      const text = method === 'transaction' ? 'begin … commit' : String(a[0]);
      log.entries.push({ kind: 'statement', role: 'gnl', text }, { kind: 'round-trip', role: 'gnl' });
      return real(...a);
    };
  }
}

// The side session's and the listener's statements are recognisable by their text; the rest is the pool's.
function roleOf(text: string): string {
  if (/pg_catalog\.pg_type/.test(text)) return 'connection setup'; // postgres.js reads array types once per new connection
  if (/^\s*(select pg_notify|select pg_advisory_unlock|with l as \(select pg_try_advisory_lock)/.test(text)) return 'gnl-holds';
  if (/^listen /.test(text)) return 'gnl-listen';
  return 'gnl';
}

/** The statement's kind in a few words: `insert gnl.run_events (append)`. */
function summarize(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (/^with r as \( update gnl\.runs/.test(t)) return 'append (update runs + insert run_events)';
  if (/^with r as \( insert into gnl\.runs/.test(t)) return 'create (insert runs + run_events)';
  // The load may carry the bodies its events name (gnl.payloads) in the same statement: still one load.
  // Or, before a hold, only what a completed run's answer needs (LOAD.answer in event-rows.ts): still one load.
  if (/^\(?select seq, type, payload, created_at(, null::text as hash)?(, answer)? from gnl\.run_events/.test(t)) return 'load (select run_events)';
  if (/^with wanted as \( select seq, type, payload, created_at, blobs(, answer)? from gnl\.run_events/.test(t)) return 'load (select run_events)';
  return t.slice(0, 60);
}
