/**
 * The retries-and-timers guide's code (docs/retries-and-timers.md): an agent's run-level retry policy,
 * an approval deadline, and a scheduled resume. The guide's code block is the #region part of this file
 * (docs/examples/code-blocks.test.ts); type-checked with the rest, never run (it would start runs; the
 * behaviour is proven by lib/executor/run-retries.test.ts, timers.test.ts and timer-workers.test.ts).
 */
// #region retries-and-timers
import { openai } from '@ai-sdk/openai';
import { tool } from 'ai';
import { defineAgent } from '@/lib/agents';
import { gnlTool } from '@/lib/durable';
import { scheduleResume } from '@/lib/executor';

export const billing = defineAgent({
  name: 'billing',
  model: () => openai('gpt-4.1-mini'),
  tools: {
    refund: gnlTool(tool({ inputSchema, execute }), {
      sideEffect: true,
      needsApproval: true,
      approvalExpiresInMs: 4 * 3_600_000, // undecided after 4 hours: the executor expires it then (a rejection)
    }),
  },
  // After a transient failure (provider unreachable, 5xx, 429, timeout) the executor resumes the run
  // 1 s, 2 s, 4 s … later (half of each wait random), 6 invocations in all; then it stays failed for a person.
  retry: { attempts: 6, initialDelayMs: 1_000, maxDelayMs: 60_000 },
});

// Approved now, executed at night: the run's next invocation, journaled with who, why and when.
await scheduleResume(runId, {
  at: '2026-12-03T02:00:00Z',
  by: 'ops@example.com',
  reason: 'after the cut-off',
});
// #endregion

import type { z } from 'zod';

declare const inputSchema: z.ZodObject<{ orderId: z.ZodString; amount: z.ZodNumber }>;
declare function execute(input: { orderId: string; amount: number }): Promise<{ refundId: string }>;
declare const runId: string;
