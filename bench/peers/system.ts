/** What the benchmark needs from each durable system: run the agent under a run id, answer for a finished one. */
import type { AgentAnswer, Effect } from './agent';

export interface DurableSystem {
  readonly name: string;
  /** Runs the agent to its end under `runId` (a new id: a fresh run). */
  run(runId: string): Promise<AgentAnswer>;
  /** Asks again for a run that already completed: what a caller gets back, and how fast. */
  answer(runId: string): Promise<AgentAnswer>;
  close(): Promise<void>;
}

export interface SystemOptions {
  /** Postgres URL of the system's own database (through its counting proxy). */
  url: string;
  /** The tool's side effect (the crash scenario's outside counter). */
  effect?: Effect;
}
