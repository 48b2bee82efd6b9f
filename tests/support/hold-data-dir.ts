/**
 * Child process for the folder-lock tests: opens the embedded journal at argv[2], writes one run,
 * prints "ready <pid>" and waits to be killed.
 */
import { PGliteStorage } from '@/lib/durable/storage';

const storage = new PGliteStorage({ dataDir: process.argv[2] as string });
const hold = await storage.runs.hold(`held-by:${process.pid}`);
await hold.create({ prompt: 'x', modelId: 'm', provider: 'p', toolNames: [] });
await hold.release();
console.log(`ready ${process.pid}`);
setInterval(() => {}, 1_000);
