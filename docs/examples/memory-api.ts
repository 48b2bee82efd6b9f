/**
 * The memory guide's code (docs/memory.md): an agent's tools with memory for one customer. The guide's
 * code block is the #region part of this file (docs/examples/code-blocks.test.ts); type-checked with the
 * rest, never run here: lib/durable/memory/memory.test.ts runs the same tools on both journals.
 */
import type { EmbeddingModel } from 'ai';
import { z } from 'zod';
import { supportTools } from '@/lib/demo/support-tools';
import type { LanguageModel } from 'ai';
import { defineWorkflow, memoryTools, runDurable } from '@gnldev/durable';
import { storageFromEnv } from '@gnldev/durable/storage';

declare const embeddingModel: EmbeddingModel;
declare const model: LanguageModel;
const storage = storageFromEnv();

// #region tools
const tools = {
  ...supportTools(),
  ...memoryTools({
    store: storage.memory,
    resource: 'customer:c_42',
    embeddingModel,
    working: z.object({ channel: z.string() }),
  }),
};
// #endregion

// #region run
const result = await runDurable({
  runId: 'ticket:8812',
  journal: storage.runs,
  model,
  tools,
  prompt: 'Where is my refund for order o_17?',
  memory: {
    store: storage.memory,
    resource: 'customer:c_42',
    thread: 'support:c_42',
    lastMessages: 10,
    recall: { embeddingModel, topK: 5 },
  },
});
// #endregion

// #region workflow
const flow = defineWorkflow({
  name: 'follow-up',
  input: z.object({ note: z.string() }),
  memory: { embeddingModel }, // each run is given its subject's memory (the executor's store)
  run: async (wf, { note }) => {
    const earlier = await wf.memory.recall('earlier', note, { topK: 3 }); // a recorded read, with scores
    await wf.memory.remember('note', [note]); // a side effect, once
    const { version, value } = await wf.memory.working('profile'); // a recorded read
    await wf.memory.updateWorking('profile-update', {
      expectedVersion: version,
      value: { ...(value as object), lastNote: note },
    });
    return earlier.length;
  },
});
// #endregion
export { flow, result, tools };
