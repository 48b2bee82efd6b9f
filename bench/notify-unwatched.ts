/**
 * NOTIFY statements sent with nobody listening (issue 31, watch-locks.ts), counted on the driver: the peers'
 * agent, 1, 10 and 50 runs at once, on a database of its own on the server of DATABASE_URL. One run alone
 * sends none; runs in flight together can (each append tries the every-run key: two at once, one announces).
 * `npx tsx bench/notify-unwatched.ts`
 */
import { randomUUID } from 'node:crypto';
import { gnlTool, runDurable } from '../lib/durable';
import { createFreshDatabase } from '../tests/support/fresh-database';
import { countedPostgres, StatementLog } from '../tests/support/statement-log';
import { loopSettings, recordTool, scriptedModel } from './peers/agent';

const database = await createFreshDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', 'gnl_bench_notify');
const log = new StatementLog();
const storage = countedPostgres(database.url, log, { max: 10 });
const tools = { record: gnlTool(recordTool(), { sideEffect: true }) };
try {
  for (const concurrent of [1, 10, 50]) {
    log.entries.length = 0;
    await Promise.all(
      Array.from({ length: concurrent }, () =>
        runDurable({ model: scriptedModel(), tools, ...loopSettings, runId: `unwatched-${randomUUID()}`, journal: storage.runs }),
      ),
    );
    await storage.notificationsSent();
    const statements = log.entries.flatMap((entry) => (entry.kind === 'statement' ? [entry] : []));
    const writes = statements.filter((entry) => entry.role === 'gnl' && /^\s*with r as/.test(entry.text)).length;
    const notifies = statements.filter((entry) => entry.role === 'gnl-holds' && /pg_notify/.test(entry.text)).length;
    console.log(`${concurrent} run(s) at once, nobody listening: ${writes} writes, ${notifies} NOTIFY statement(s)`);
  }
} finally {
  await storage.close();
  await database.drop();
}
