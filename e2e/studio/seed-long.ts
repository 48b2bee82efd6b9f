/**
 * Seeds the `long` project's journal (GNL_DATA_DIR) with one run of LONG.lastSeq events, appended
 * through the real journal (hold, create, append): each model step calls a read-only tool whose end is
 * recorded. Runs before that Studio starts (the folder lock admits one process).
 */
import type { JournalEvent } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { LONG } from './seed-data';
import { seedSpoofed } from '@/tests/support/spoofed-text';
import { seedHostile } from './seed-hostile';
import { seedResumable } from './seed-resumable';
import { seedSchedules } from './seed-schedules';

const dataDir = process.env.GNL_DATA_DIR;
if (!dataDir) throw new Error('seed-long: set GNL_DATA_DIR to the (fresh) data folder the Studio will read.');

function stepEvents(step: number): JournalEvent[] {
  const toolCallId = `call-${step}`;
  const input = { page: step };
  return [
    {
      type: 'model-step',
      step,
      provider: 'scripted',
      modelId: 'scripted-v1',
      latencyMs: 1,
      result: {
        content: [{ type: 'tool-call', toolCallId, toolName: 'readPage', input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        usage: { inputTokens: { total: 20 }, outputTokens: { total: 5 } },
      },
    },
    {
      type: 'tool-call-end',
      toolCallId,
      toolName: 'readPage',
      idempotencyKey: `key-${step}`,
      attempt: 1,
      input,
      output: { page: step, text: `page ${step}` },
      durationMs: 1,
      source: 'executed',
      startedAt: new Date().toISOString(),
    },
  ];
}

const storage = new PGliteStorage({ dataDir });
try {
  const hold = await storage.runs.hold(LONG.runId);
  await hold.create({ prompt: 'Read every page', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['readPage'] });
  for (let step = 0; step < LONG.steps; step += 250) {
    await hold.append(Array.from({ length: Math.min(250, LONG.steps - step) }, (_, i) => stepEvents(step + i)).flat());
  }
  await hold.release();
  const run = await storage.runs.getRun(LONG.runId);
  if (run?.lastSeq !== LONG.lastSeq) throw new Error(`seed-long: expected ${LONG.lastSeq} events, got ${run?.lastSeq}`);
  console.log(`seed-long: ${LONG.runId} with ${run.lastSeq} events`);
  // The security spec's untrusted payloads (e2e/studio/security.spec.ts runs against this Studio).
  await seedHostile(storage);
  // The spoofing spec's hidden characters (tests/support/spoofed-text.ts; e2e/studio/spoofing.spec.ts).
  await seedSpoofed(storage);
  // The schedules spec's runs (e2e/studio/schedules.spec.ts runs against this Studio).
  console.log(`seed-long: schedule runs ${(await seedSchedules(storage)).join(', ')}`);
  // The resume-at spec's run, waiting to be resumed (e2e/studio/resume-at.spec.ts).
  await seedResumable(storage);
} finally {
  await storage.close();
}
