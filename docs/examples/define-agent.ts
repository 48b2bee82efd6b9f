/**
 * The agents guide's code (docs/agents-and-demo.md): an agent defined and run by name. The guide's code
 * blocks are the #region parts of this file (docs/examples/code-blocks.test.ts); type-checked with the
 * rest, never run (it would call a provider).
 */
// #region define-agent
import { stepCountIs } from 'ai';
import { openai } from '@ai-sdk/openai';
import { defineAgent, runAgent } from '@/lib/agents';

export const billing = defineAgent({
  name: 'billing', // lower-case letters, digits, dashes: it is recorded in every run
  model: () => openai('gpt-4.1-mini'), // a model, a model id, or a function called on first use
  tools: { lookupOrder, refund },
  system: 'You handle billing questions.',
  stopWhen: stepCountIs(10), // and any other runDurable / generateText setting
});

billing.version; // 16 hex characters over tool names and input schemas, model provider and id, system prompt
await runAgent({
  agent: billing,
  runId: `billing:${job.id}`,
  input: { prompt: job.message },
  journal,
});
// #endregion

import type { Journal } from '@/lib/durable';

/** The reader's own tools, job and journal, in the guide. */
declare const lookupOrder: any;
declare const refund: any;
declare const job: { id: string; message: string };
declare const journal: Journal;
