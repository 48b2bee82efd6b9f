/**
 * The memory guide's code (docs/memory.md): an agent's tools with memory for one customer. The guide's
 * code block is the #region part of this file (docs/examples/code-blocks.test.ts); type-checked with the
 * rest, never run here: lib/durable/memory/memory.test.ts runs the same tools on both journals.
 */
import type { EmbeddingModel } from 'ai';
import { z } from 'zod';
import { supportTools } from '@/lib/demo/support-tools';
import { memoryTools } from '@gnldev/durable';
import { storageFromEnv } from '@gnldev/durable/storage';

declare const embeddingModel: EmbeddingModel;
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
export { tools };
