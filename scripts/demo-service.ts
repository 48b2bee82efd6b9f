/**
 * `npm run demo:service`: the demo's outside service as its own process, on 127.0.0.1 at
 * GNL_DEMO_SERVICE_PORT (default 4010). Point the agent at it with GNL_DEMO_SERVICE_URL (the default
 * matches). GNL_DEMO_SERVICE_STORE: a file it keeps its store in across restarts (default: none, in memory).
 * Stops on SIGINT / SIGTERM.
 */
import { demoServicePort, startOutsideService } from '@/lib/demo';

const storeFile = process.env.GNL_DEMO_SERVICE_STORE || undefined;
const service = await startOutsideService({ port: demoServicePort(), ...(storeFile ? { storeFile } : {}) });
process.stdout.write(`GNL demo outside service on ${service.url} (GET /stats for its counters${storeFile ? `; its store: ${storeFile}` : ''})\n`);

const stop = async () => {
  await service.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
