/**
 * What the append's fence costs as more runs are held (issue 31): the check that the run's advisory lock is
 * still held, with N other runs' locks held on the server, asked two ways, one statement each from
 * another connection, medians of 5 rounds of 1,000:
 *   - the lock manager for that key (`not pg_try_advisory_xact_lock_shared(key)`: run-locks.ts, what the append runs);
 *   - `pg_locks` (what the append read before: the view copies the whole lock table each time).
 *
 *   npx tsx bench/fence-check.ts            (DATABASE_URL, default the local test database)
 */
import postgres from 'postgres';
import { lockHeldClause } from '../lib/durable/storage/run-locks';
import { summary } from './stats';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const holder = postgres(url, { max: 1, onnotice: () => {} });
const asker = postgres(url, { max: 1, onnotice: () => {} });
const KEY = '987654321987'; // the run's lock; the others are 1..N
const ROUNDS = 5;
const PER_ROUND = 1000;

const viaPgLocks = `select exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.granted and l.objsubid = 1
  and l.pid = $1::int and l.classid = ($2::bigint >> 32)::oid and l.objid = ($2::bigint & 4294967295)::oid) as held`;
const viaLockManager = `select ${lockHeldClause('$1')} as held`;

async function perStatement(run: () => Promise<{ held: boolean }[]>): Promise<number> {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const started = performance.now();
    for (let i = 0; i < PER_ROUND; i++) {
      const [row] = await run();
      if (row?.held !== true) throw new Error('fence-check: the lock was not seen as held');
    }
    rounds.push((performance.now() - started) / PER_ROUND);
  }
  return summary(rounds, 3).median;
}

try {
  const [{ pid } = { pid: 0 }] = await holder<{ pid: number }[]>`select pg_backend_pid() as pid`;
  console.log('other runs held | pg_locks (ms a statement) | lock manager (ms a statement)');
  for (const others of [0, 100, 1000, 3000]) {
    await holder`select pg_advisory_unlock_all()`;
    if (others > 0) await holder.unsafe(`select count(pg_advisory_lock(k)) from generate_series(1, ${others}) k`);
    await holder.unsafe(`select pg_advisory_lock(${KEY}::bigint)`);
    const old = await perStatement(() => asker.unsafe(viaPgLocks, [pid, KEY], { prepare: true }) as never);
    const now = await perStatement(() => asker.unsafe(viaLockManager, [KEY], { prepare: true }) as never);
    console.log(`${String(others).padStart(15)} | ${old.toFixed(3).padStart(24)} | ${now.toFixed(3).padStart(28)}`);
  }
} finally {
  await holder`select pg_advisory_unlock_all()`.catch(() => undefined);
  await Promise.all([holder.end(), asker.end()]);
}
