/**
 * The erasure guide's code (docs/erasure.md): a run that records who it is about, started directly and
 * through the executor, so every run of that subject can be erased at once. The guide's code block is
 * the #region part of this file (docs/examples/code-blocks.test.ts); type-checked with the rest, never
 * run (it would start runs). lib/durable/storage/erasure.test.ts and lib/cli/erase-cli.test.ts run it.
 */
import type { LanguageModel, ToolSet } from 'ai';
import type { AgentRegistry } from '@/lib/agents';
import { runDurable } from '@/lib/durable';
import type { PostgresStorage } from '@/lib/durable/storage';
import { startRun } from '@/lib/executor';

export async function startFor(args: {
  storage: PostgresStorage;
  registry: AgentRegistry;
  model: LanguageModel;
  tools: ToolSet;
  runId: string;
  prompt: string;
}) {
  const { storage, registry, model, tools, runId, prompt } = args;
  const journal = storage.runs;
  // #region subject
  await runDurable({ runId, journal, model, tools, prompt, subject: 'customer:c_42' });
  await startRun({
    storage,
    registry,
    agent: 'support',
    input: { prompt, subject: 'customer:c_42' },
  });
  // #endregion
}
