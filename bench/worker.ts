/**
 * A worker process for the benchmark: the same Executor as `npm run worker` (lib/executor/worker-main.ts),
 * with the benchmark's agent registered instead of the deployment's (the support agent needs the demo's
 * outside service and a person's approval for every refund). One JSON line per executor event on stdout.
 *
 *   DATABASE_URL=… npx tsx bench/worker.ts --concurrency 100 [--poll-ms 50] [--steps 20]
 */
import { parseArgs } from 'node:util';
import { PostgresStorage } from '../lib/durable/storage';
import { Executor } from '../lib/executor';
import { benchRegistry } from './agent';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '4' },
    'poll-ms': { type: 'string', default: '50' },
    steps: { type: 'string', default: '20' },
    pool: { type: 'string', default: '10' },
  },
  strict: true,
});
const url = process.env.DATABASE_URL;
if (!url) throw new Error('bench worker: DATABASE_URL is required');
const storage = new PostgresStorage({ connectionString: url, max: Number(values.pool) });
const print = (event: object) => process.stdout.write(`${JSON.stringify({ t: Date.now(), pid: process.pid, ...event })}\n`);
const executor = new Executor({
  storage,
  registry: benchRegistry(Number(values.steps)),
  concurrency: Number(values.concurrency),
  pollMs: Number(values['poll-ms']),
  onEvent: (event) => {
    if (event.type !== 'claimed') print(event);
  },
});
await storage.database();
executor.start();
const stop = async () => {
  await executor.stop({ graceMs: 2000 });
  await storage.close().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
