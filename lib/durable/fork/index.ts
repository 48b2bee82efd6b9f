/**
 * Forks: a new run from a parent's journal up to a step, with edits. planFork (fork-plan.ts) decides what
 * is copied and which side effects after the fork point would repeat; fork-keys.ts gives the fork's calls
 * the keys of the work they name (never new ones for work already done); fork-request.ts is the request's
 * schema, fork-instruction.ts what the forked run tells the model.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  editableResults,
  type EditableResult,
  planFork,
  type ForkEdit,
  type ForkOrigin,
  type ForkPlan,
  type ForkRequest,
  type InheritedKey,
  type RepeatableSideEffect,
} from './fork-plan';
export { forkEditSchema, type JournalForkRequest, forkRequestSchema } from './fork-request';
