/**
 * Journals the security spec's untrusted payloads (hostile-data.ts) with the real runtime (runDurable,
 * a scripted model, real tools) into the `long` project's journal, before its Studio starts: a completed
 * run whose tool arguments, output and model text carry script, event handlers, javascript: links,
 * 0.9 MB strings and a 900-level JSON; and a run waiting for approval of hostile arguments.
 */
import { stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { gnlTool, runDurable } from '@/lib/durable';
import type { PGliteStorage } from '@/lib/durable/storage';
import { scriptedModel } from '@/tests/support/scripted-model';
import { HOSTILE, huge, nested, SCRIPT_PAYLOADS } from './hostile-data';

const lookup = tool({
  description: 'Look up a page <script>window.__gnlPwned="description"</script>',
  inputSchema: z.object({ url: z.string(), notes: z.array(z.string()), tree: z.unknown() }),
  execute: async ({ url }) => ({ url, links: SCRIPT_PAYLOADS, body: huge(HOSTILE.hugeChars) }),
});

const send = gnlTool(
  tool({
    description: 'Send an email',
    inputSchema: z.object({ to: z.string(), html: z.string(), link: z.string() }),
    execute: async () => ({ sent: true }),
  }),
  { sideEffect: true, needsApproval: true },
);

export async function seedHostile(storage: PGliteStorage): Promise<void> {
  const text = `${SCRIPT_PAYLOADS.join('\n')}\n${huge(HOSTILE.hugeChars)}`;
  const completed = await runDurable({
    runId: HOSTILE.completed.runId,
    journal: storage.runs,
    model: scriptedModel((step) =>
      step === 0
        ? {
            toolCalls: [
              {
                toolCallId: 'call-<b>hostile</b>',
                toolName: 'lookup',
                input: { url: SCRIPT_PAYLOADS[4], notes: SCRIPT_PAYLOADS, tree: nested(HOSTILE.depth) },
              },
            ],
          }
        : { text },
    ).model,
    tools: { lookup },
    stopWhen: stepCountIs(3),
    prompt: `Summarise ${SCRIPT_PAYLOADS[0]}`,
  });
  if (completed.status !== 'completed') throw new Error(`seed-hostile: expected completed, got ${completed.status}`);
  // The output must be journaled as such (a tool-call-error instead would leave the spec without its huge output).
  const types = (await storage.runs.events(HOSTILE.completed.runId)).map((e) => e.type);
  if (!types.includes('tool-call-end')) throw new Error(`seed-hostile: the hostile output was not journaled (events: ${types.join(', ')})`);

  const waiting = await runDurable({
    runId: HOSTILE.waiting.runId,
    journal: storage.runs,
    model: scriptedModel(() => ({
      toolCalls: [{ toolCallId: 'call-send', toolName: 'send', input: { to: SCRIPT_PAYLOADS[1], html: SCRIPT_PAYLOADS[3], link: SCRIPT_PAYLOADS[4] } }],
    })).model,
    tools: { send },
    stopWhen: stepCountIs(3),
    prompt: SCRIPT_PAYLOADS[2],
  });
  if (waiting.status !== 'waiting-approval') throw new Error(`seed-hostile: expected waiting-approval, got ${waiting.status}`);
  console.log(`seed-hostile: ${completed.runId} completed, ${waiting.runId} waiting`);
}
