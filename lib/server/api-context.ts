/**
 * What the HTTP API works on: the journal's storage, the deployment's registry (which agents and
 * workflows it may start) and the executor that runs what it starts and resumes (the Studio's
 * in-process one, or `gnl serve`'s). Given by whoever hosts the API, never found by the API itself.
 */
import type { Principal } from '@/lib/accounts';
import type { AgentRegistry } from '@/lib/agents';
import type { RunSummary } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import type { Executor } from '@/lib/executor';
import type { RateLimit } from './rate-limit';

export interface ApiContext {
  storage: Storage;
  registry: AgentRegistry;
  executor: Pick<Executor, 'startRun' | 'resumeRun' | 'kick'>;
  /** Default: rateLimitFromEnv() (per token, in this process). */
  rateLimit?: RateLimit;
  /** Live streams: heartbeat and lifetime (default 15 s and 5 min: a client reconnects with Last-Event-ID). */
  stream?: { heartbeatMs?: number; maxMs?: number };
}

/** One request to one route, authenticated and parsed (api-handler.ts), as the route's `handle` gets it. */
export interface ApiCall {
  principal: Extract<Principal, { kind: 'token' }>;
  /** Who the journal names: `token:<name>`. */
  by: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  request: Request;
  context: ApiContext;
  /** The run the path names, read and checked against the token's agents (routes with `run: true`). */
  run: RunSummary;
  /** Names the run a call made (a start), for its audit row as a run route's names its run. */
  made(runId: string): void;
}
