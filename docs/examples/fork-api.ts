/**
 * The fork guide's code (docs/fork.md): a run forked at a model step, previewed first. The guide's code
 * block is the #region part of this file (docs/examples/code-blocks.test.ts); type-checked with the rest,
 * never run (it would fork runs). lib/executor/fork-run.test.ts runs the same calls on real journals.
 */
// #region fork-api
import { registry } from '@/agents'; // the deployment's agents: a fork runs its parent's agent
import { forkRun, previewFork } from '@/lib/executor';

const runId = 'support:1b2c…'; // a run whose model step 3 asked for the refund
// What a fork at step 3 keeps, and every side effect that could act again after it, with its key:
const preview = await previewFork({ registry, runId, atStep: 3 });
for (const effect of preview.repeatable)
  console.log(effect.toolName, effect.idempotencyKey, effect.outcome);

const fork = await forkRun({
  registry,
  runId,
  atStep: 3, // "Model step 3" in the Studio: steps 1–2 are kept and replayed, step 3 is asked again
  by: 'ops@example.com',
  reason: 'offer a voucher instead',
  edit: { instruction: 'Offer a voucher of 40 instead of a refund.' }, // or { toolResult: { toolCallId, output } }
  newRunId: `${runId}:voucher`, // optional: the same id again returns this fork (created: false)
});
console.log(fork.runId, fork.created); // enqueued: an executor runs it like any started run
// #endregion
