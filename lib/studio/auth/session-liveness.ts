/**
 * Whether a session is still on, for the long-lived event streams: a stream was authenticated when it
 * opened, and re-asks here on each heartbeat. The answer comes from a per-process cache refreshed at
 * most every `ttlMs` per session (one lookup shared by every stream of that session, never one per
 * event), so a session revoked elsewhere (`gnl operators sign-out`, another Studio process, disabling)
 * is noticed within ttlMs plus one heartbeat. A revocation made by this process (the browser's Sign out)
 * is written here at once. Revoked is final: a session never comes back, so that answer is kept.
 *
 * Pure apart from `lookup` (the database question, lib/accounts sessionOperator) and `clock`.
 */

export interface SessionRef {
  sessionId: string;
  operatorId: string;
  expiresAt: Date;
}

export interface SessionLivenessOptions {
  /** Whether the session is on now (not revoked, the account enabled). */
  lookup(session: SessionRef): Promise<boolean>;
  /** How long a "still on" answer is reused. Default 5 000 ms. */
  ttlMs?: number;
  /** Default Date.now. */
  clock?: () => number;
  /** Sessions remembered at most; past it the oldest answers are dropped (and asked again). Default 10 000. */
  maxEntries?: number;
}

interface Entry {
  live: boolean;
  at: number;
  pending?: Promise<boolean>;
}

export class SessionLiveness {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly clock: () => number;
  private readonly maxEntries: number;

  constructor(private readonly options: SessionLivenessOptions) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.clock = options.clock ?? Date.now;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Whether `session` is on: from the cache when fresh (or revoked), else one lookup shared by concurrent askers. */
  isLive(session: SessionRef): Promise<boolean> {
    const now = this.clock();
    if (session.expiresAt.getTime() <= now) return Promise.resolve(false);
    const entry = this.entries.get(session.sessionId);
    if (entry && (!entry.live || now - entry.at < this.ttlMs)) return Promise.resolve(entry.live);
    if (entry?.pending) return entry.pending;
    const pending = this.options.lookup(session).then(
      (live) => {
        this.remember(session.sessionId, { live, at: this.clock() });
        return live;
      },
      (error: unknown) => {
        this.entries.delete(session.sessionId);
        throw new Error(`Could not check whether session ${session.sessionId.slice(0, 8)}… is still on`, { cause: error });
      },
    );
    this.entries.set(session.sessionId, { live: entry?.live ?? true, at: entry?.at ?? 0, pending });
    return pending;
  }

  /** This process ended the session (Sign out): every stream of it stops at its next check. */
  revoked(sessionId: string): void {
    this.remember(sessionId, { live: false, at: this.clock() });
  }

  /** Sessions remembered now (for the bound's test). */
  get size(): number {
    return this.entries.size;
  }

  private remember(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }
}
