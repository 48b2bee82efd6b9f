/**
 * The executors guide's code (docs/executors.md): runs started, resumed, canceled, abandoned and
 * restarted by agent name. The guide's code blocks are the #region parts of this file
 * (docs/examples/code-blocks.test.ts); type-checked with the rest, never run (it would start runs).
 */
// #region executor-api
import { registry } from '@/agents'; // the deployment's agents: the executor runs the registry it is given
import { abandonRun, cancelRun, restartRun, resumeRun, startRun } from '@/lib/executor';

const { runId } = await startRun({
  registry,
  agent: 'support',
  input: { prompt: 'Customer c_42 wants a refund of 40 for order o_17' },
});
// … an executor runs it to the approval; a person approves (journal.approve), then:
await resumeRun(runId, { by: 'ops@example.com', reason: 'refund approved' }); // recorded; runnable again: an executor continues it
await cancelRun(runId, { by: 'ops@example.com', reason: 'duplicate' }); // stops at its next step boundary
// a run whose agent changed since it started (RunDivergedError):
await abandonRun(runId, { by: 'ops@example.com', reason: 'refund tool changed' }); // recorded, canceled
await restartRun(runId, { registry, by: 'ops@example.com' }); // the same input as a new run of the agent as it is now
// #endregion
