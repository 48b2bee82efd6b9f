/**
 * The guides' child process: runs one scenario of a guide's example code in a process of its own, the
 * way a worker would, so the outside world can SIGKILL it mid-run. Configured by environment variables:
 *   GUIDE_SCENARIO  support-generateText | support-durable | refund-in-flight
 *   WORLD_URL       the outside world (outside-world.ts)
 *   JOB_ID          the job (support) or the runId prefix (refunds)
 * and the journal as storageFromEnv reads it (DATABASE_URL, or GNL_DATA_DIR for the embedded journal).
 * Prints one JSON line and exits 0, unless it is killed first.
 *
 *   node --import tsx docs/examples/test-support/child.ts
 */
import { runDurable } from '@gnldev/durable';
import { storageFromEnv } from '@gnldev/durable/storage';
import { refundAtLegacyPsp, refundChecked, refundOnce, refundRetrySafe } from '../refund-tools';
import { refundScript, SUPPORT_MESSAGE, supportScript, worldModel } from './models';

const scenario = process.env.GUIDE_SCENARIO;
const worldUrl = process.env.WORLD_URL as string;
const jobId = process.env.JOB_ID as string;
process.env.HELPDESK_URL = worldUrl;

if (scenario === 'support-generateText' || scenario === 'support-durable') {
  const { handleWithGenerateText, onQueueMessage } = await import('../support-worker');
  const model = worldModel({ worldUrl, agent: scenario, script: supportScript });
  const job = { id: jobId, message: SUPPORT_MESSAGE };
  const outcome =
    scenario === 'support-durable'
      ? await onQueueMessage(job, model)
      : await handleWithGenerateText(job, model);
  console.log(JSON.stringify({ outcome }));
} else if (scenario === 'refund-in-flight') {
  // Four refund runs at once, one per way of marking the tool; the outside world kills this process
  // once the PSPs have done all four refunds and before any answer arrives.
  const journal = storageFromEnv().runs;
  const runs = [
    { name: 'once', refund: refundOnce(`${worldUrl}/psp`) },
    { name: 'retry-safe', refund: refundRetrySafe(`${worldUrl}/psp`) },
    { name: 'checked', refund: refundChecked(`${worldUrl}/psp`) },
    { name: 'legacy', refund: refundAtLegacyPsp(`${worldUrl}/legacy-psp`) },
  ];
  await Promise.all(
    runs.map(({ name, refund }) =>
      runDurable({
        runId: `${jobId}:${name}`,
        journal,
        model: worldModel({
          worldUrl,
          agent: name,
          script: refundScript({ orderId: `o_${name}`, amount: 40 }),
        }),
        tools: { refund },
        prompt: `Refund order o_${name}`,
      }),
    ),
  );
  console.log(JSON.stringify({ outcome: 'not killed' }));
} else {
  throw new Error(`child: unknown GUIDE_SCENARIO ${scenario}`);
}
await storageFromEnv().close(); // the storage the examples opened (one per process)
process.exit(0);
