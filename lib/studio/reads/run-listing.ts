/**
 * A row of the runs page as the browser receives it: the run's summary, plus what the runs page's
 * query (run-search.ts) reads beside it. Browser-safe (types and pure helpers only).
 */
import type { Cost } from '@/lib/cost';
import type { WireRun } from './wire';

export interface RunListing extends WireRun {
  /** Input plus output tokens over the run's model steps; absent until the page re-reads a run that arrived live. */
  tokens?: number;
  /** What its model steps cost under the Studio's price table (lib/cost); absent like `tokens`. */
  cost?: Cost;
  /**
   * A running run whose executor's lease expired and that no live process holds: nobody is executing it
   * until an executor claims it again. Which executor held it, when the lease ran out, its last heartbeat.
   */
  lapsedLease?: { owner: string; expiredAt: string; heartbeatAt: string | null };
  /**
   * Its last event but the links a fork or a restart of it appended later (run-forked, run-restarted): where
   * its duration ends. Absent like `tokens` (then `updatedAt`).
   */
  workedUntil?: string;
  /** What happened to the run, at a glance (run-marks-sql.ts); absent until the page re-reads a run that arrived live. */
  marks?: RunMarks;
}

export interface RunMarks {
  /** An invocation stopped without an end (a crash, a lapsed lease) and another took the run over. */
  interrupted: boolean;
  /** The run waited for people at least once. */
  waited: boolean;
  /** A person decided something in it (approved, rejected, settled, provided a result). */
  decided: boolean;
  /** It came from an export (gnl import): its history was recorded in another journal. */
  imported?: boolean;
}

/**
 * What a run is about, in one line: its prompt's first line, or (a chat turn) the first line of its last
 * user message's text; undefined when it has neither. Untrusted text: render it as text.
 */
export function runGoal(input: Pick<WireRun['input'], 'prompt' | 'messages'> | undefined): string | undefined {
  const first = (text: string) => text.trim().split(/\r?\n/, 1)[0]?.trim() || undefined;
  if (typeof input?.prompt === 'string') return first(input.prompt);
  const messages = Array.isArray(input?.messages) ? (input.messages as { role?: unknown; content?: unknown }[]) : [];
  const user = messages.filter((m) => m?.role === 'user').at(-1);
  if (!user) return undefined;
  if (typeof user.content === 'string') return first(user.content);
  const parts = Array.isArray(user.content) ? (user.content as { type?: unknown; text?: unknown }[]) : [];
  const text = parts.find((p) => p?.type === 'text' && typeof p.text === 'string')?.text;
  return typeof text === 'string' ? first(text) : undefined;
}

/** The undecided items a run waits for: what the inbox holds of it. */
export function inboxCount(run: Pick<WireRun, 'pending'>): number {
  return run.pending.filter((item) => !item.decision).length;
}

export interface RunListPage {
  runs: RunListing[];
  nextCursor?: string;
}

/** The runs page's filters, as they appear in its URL. */
export interface RunListFilters {
  status?: WireRun['status'];
  agent?: string;
  /** A run-id prefix, a tool name or an idempotency key. */
  q?: string;
}

/** Whether a run (as a live change reports it) belongs to a list with these filters, as far as the browser can tell. */
export function listingMatches(run: Pick<WireRun, 'status' | 'input'>, filters: RunListFilters): boolean {
  return (filters.status === undefined || run.status === filters.status) && (filters.agent === undefined || run.input?.agent === filters.agent);
}
