/** What a workflow step is given and how it is declared (wf.step; wf.memory's steps). */
import type { CheckContext, CheckResult, LookupResult } from '../tools/gnl-tool';

export interface StepContext<INPUT> {
  /** The step's input (its `input` option), as recorded. */
  input: INPUT;
  /** The same on every attempt and every resume of this step (and in a restart of the job): give it to the outside service. */
  idempotencyKey: string;
  runId: string;
}

export interface StepOptions<INPUT, OUTPUT> {
  /** The step's input: recorded, part of its key with idempotency 'args', shown in the Studio and given to an approver. Default null. */
  input?: INPUT;
  /** The step changes the outside world: at most once; an unknown outcome stops the run for a person. Default false. */
  sideEffect?: boolean;
  /** The outside service deduplicates by the idempotency key: after an unknown outcome it is run again. */
  retrySafe?: boolean;
  /** Asks the outside service whether the work under the key happened, after an unknown outcome. */
  check?: (ctx: CheckContext<INPUT>) => Promise<CheckResult<OUTPUT>>;
  /** Looks up what the outside service holds under the key, for the person who decides an unknown outcome. */
  lookup?: (ctx: CheckContext<INPUT>) => Promise<LookupResult<OUTPUT>>;
  /** 'call' (default) or 'args' (equal inputs are one piece of work). */
  idempotency?: 'call' | 'args';
  /** Wait for a person to approve before the step runs (a rejected step throws StepRejectedError). */
  needsApproval?: boolean;
  /** Retries of a throwing step within one invocation (default 2), the first after retryDelayMs (default 1000), doubling. */
  maxRetries?: number;
  retryDelayMs?: number;
}
