/**
 * The versions guide's code (docs/versions-and-migration.md): two versions of the support agent side by
 * side, and a run migrated on purpose after its preview. The guide's code block is the #region part of
 * this file (docs/examples/code-blocks.test.ts); type-checked with the rest, never run (it would move a
 * run). lib/executor/migrate-run.test.ts runs the same calls on both journals.
 */
// #region versions
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { demoModel } from '@/lib/demo/demo-model';
import { supportTools } from '@/lib/demo/support-tools';
import { migrateRun, previewMigration } from '@/lib/executor';

const v1 = supportAgent();
// A reworded prompt: open runs of v1 take it over at their next model step (their recorded steps stay).
const reworded = defineAgent({
  name: 'support',
  model: () => demoModel(),
  tools: supportTools(),
  system: `${SUPPORT_SYSTEM}\n6. Sign every email "The support team".`,
  onChange: 'continue',
});
// New runs start on the last version listed (or on `current: { support: '<version>' }`).
export const registry = createAgentRegistry([v1, reworded]);

// A run no registered version continues (stranded): look first, then move it, saying who and why.
export async function migrate(runId: string) {
  const preview = await previewMigration(runId, { registry, to: reworded.version });
  // preview.kept: each finished call and its key (never executed again); preview.reruns; preview.refusals
  if (!preview.safe) return preview;
  return migrateRun(runId, {
    registry,
    to: preview.to,
    by: 'ops@example.com',
    reason: 'support prompt v2',
  });
}
// #endregion
