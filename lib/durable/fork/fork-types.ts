/** The shapes of a fork (fork-plan.ts plans an agent's, workflow-fork-plan.ts a workflow's). */
import type { JournalEvent, RunInput } from '../journal/events';

export type ForkOrigin = NonNullable<RunInput['forkOf']>;
export type InheritedKey = ForkOrigin['inheritedKeys'][number];

/** What an operator changes at the fork point (at most one). */
export type ForkEdit =
  /** A user message given to the model at step atStep, after the shared history. */
  | { instruction: string }
  /** The output of a call of step atStep-1, replacing the recorded one in the copy (recorded as provided by the operator). */
  | { toolResult: { toolCallId: string; output: unknown } }
  /** A workflow's fork only: the registered version of the workflow the fork runs (workflow-fork-plan.ts). */
  | { version: string };

export interface ForkRequest {
  /** The parent. */
  runId: string;
  /** The model step the fork asks again, counted from 1 as the Studio's timeline does (a workflow's: its step, workflow-fork-plan.ts). */
  atStep: number;
  /** Who forks (an operator account): recorded in the fork's run-start and the parent's run-forked. */
  by: string;
  reason: string;
  edit?: ForkEdit;
}

/** A side effect the parent performed after the fork point: a fork that repeats it sends this key. */
export interface RepeatableSideEffect extends InheritedKey {
  /** The parent's call, when the parent made it (absent for one the parent inherited from its own parent). */
  toolCallId?: string;
  /** Its model step, counted from 1; absent for one the parent inherited. */
  step?: number;
  /** What the parent's journal knows of it ('inherited': the parent's own parent made it). */
  outcome: 'done' | 'error' | 'unknown' | 'inherited';
}

export interface ForkPlan {
  /** The fork's run-start input: the parent's as it was at the fork point, with `forkOf`. */
  input: RunInput;
  /** The parent's events the fork keeps, as they will be appended after its run-start (renumbered from 2). */
  history: JournalEvent[];
  /** The parent's seq of the model step the fork asks again: everything before it is kept. */
  forkSeq: number;
  repeatable: RepeatableSideEffect[];
}
