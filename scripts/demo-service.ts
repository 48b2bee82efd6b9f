/**
 * `npm run demo:service`: the demo's outside service as its own process, on 127.0.0.1 at
 * GNL_DEMO_SERVICE_PORT (default 4010). Point the agent at it with GNL_DEMO_SERVICE_URL (the default
 * matches). Stops on SIGINT / SIGTERM.
 */
import { demoServicePort, startOutsideService } from '@/lib/demo';

const service = await startOutsideService({ port: demoServicePort() });
process.stdout.write(`GNL demo outside service on ${service.url} (GET /stats for its counters)\n`);

const stop = async () => {
  await service.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
