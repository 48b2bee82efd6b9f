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
import { PGliteStorage } from '@/lib/durable/storage';
import { VERSIONS } from './versions-data';

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
} finally {
  await storage.close();
  await service.close();
}
