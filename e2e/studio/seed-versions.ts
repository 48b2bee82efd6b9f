/**
 * Seeds the `versions` project's journal (GNL_DATA_DIR) with a run stranded by a deploy: the support
 * agent with an earlier system prompt, run for real (runAgent, the demo's scripted model, a real outside
 * service of its own that closes with this script) to its refund's approval. The Studio then deploys
 * agents/index.ts, whose support agent has today's prompt and declares onChange 'pinned': no registered
 * version matches the run. Runs before that Studio starts (the folder lock admits one process).
 */
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { defineAgent, runAgent } from '@/lib/agents';
import { startOutsideService } from '@/lib/demo';
import { supportTools } from '@/lib/demo/support-tools';
import { runDurable, unitVector } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { scriptedModel } from '@/tests/support/scripted-model';
import { wordEmbeddingModel, wordVector } from '@/tests/support/word-embeddings';
import { MEMORY, VERSIONS } from './versions-data';

const dataDir = process.env.GNL_DATA_DIR;
if (!dataDir) throw new Error('seed-versions: set GNL_DATA_DIR to the (fresh) data folder the Studio will read.');

const service = await startOutsideService();
const storage = new PGliteStorage({ dataDir });
try {
  const deployed = supportAgent({ serviceUrl: service.url });
  const earlier = defineAgent({
    name: 'support',
    model: deployed.model,
    tools: supportTools({ serviceUrl: service.url, checks: false }),
    system: `${SUPPORT_SYSTEM}\n${VERSIONS.earlierWording}`,
    stopWhen: deployed.settings.stopWhen,
  });
  const result = await runAgent({ agent: earlier, runId: VERSIONS.runId, input: { prompt: VERSIONS.prompt }, journal: storage.runs });
  if (result.status !== 'waiting-approval') throw new Error(`seed-versions: expected waiting-approval, got ${result.status}`);
  console.log(`seed-versions: ${VERSIONS.runId} waiting-approval on version ${earlier.version} (deployed: ${deployed.version})`);
  await seedMemory(storage);
} finally {
  await storage.close();
  await service.close();
}

/** MEMORY (versions-data.ts): a customer's facts, an earlier conversation, two working memory versions, and a run given that memory. */
async function seedMemory(storage: PGliteStorage): Promise<void> {
  const store = storage.memory;
  const { resource, thread } = MEMORY;
  await store.add({
    resource,
    key: 'seed-memory-facts',
    items: MEMORY.facts.map((text) => ({ kind: 'fact' as const, text, embedding: unitVector(wordVector(text)) })),
  });
  await store.add({
    resource,
    key: 'seed-memory-thread',
    items: [
      { kind: 'message' as const, thread, role: 'user', text: 'My order o_77 has not come yet.' },
      { kind: 'message' as const, thread, role: 'assistant', text: 'It is on its way: it should arrive tomorrow.' },
    ],
  });
  await store.add({ resource: MEMORY.other, key: 'seed-memory-other', items: [{ kind: 'fact', text: 'another customer' }] });
  for (const [index, version] of MEMORY.working.entries())
    await store.writeWorking({
      resource,
      expectedVersion: index,
      value: version.value,
      by: version.by,
      ...(version.reason ? { reason: version.reason } : {}),
      key: `seed-memory-working-${index}`,
    });
  const model = scriptedModel(() => ({ text: MEMORY.answer }));
  const result = await runDurable({
    runId: MEMORY.runId,
    journal: storage.runs,
    model: model.model,
    prompt: MEMORY.prompt,
    memory: { store, resource, thread, lastMessages: 2, recall: { embeddingModel: wordEmbeddingModel(), topK: 2 } },
  });
  if (result.status !== 'completed') throw new Error(`seed-versions: expected the memory run to complete, got ${result.status}`);
  console.log(`seed-versions: ${MEMORY.runId} completed with the memory of ${resource}`);
}
