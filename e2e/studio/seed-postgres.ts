/**
 * The Postgres Studio's database and operator (project `postgres`, see playwright.config.ts): creates
 * the Studio's database on the server (through GNL_E2E_PG_ADMIN_URL, the database CI names) if it does
 * not exist, then an account with a login no earlier run used (the database keeps data between runs).
 * Run before the Studio starts.
 */
import postgres from 'postgres';
import { addOperator } from '@/lib/accounts';
import { storageFromEnv } from '@/lib/durable/storage';
import { postgresOperator } from './seed-data';

const target = process.env.DATABASE_URL;
const admin = process.env.GNL_E2E_PG_ADMIN_URL;
if (!target || !admin) throw new Error('seed-postgres: DATABASE_URL and GNL_E2E_PG_ADMIN_URL are set by playwright.config.ts');
const database = decodeURIComponent(new URL(target).pathname.slice(1));
const sql = postgres(admin, { max: 1, onnotice: () => {} });
try {
  const [exists] = await sql`select 1 from pg_database where datname = ${database}`;
  if (!exists) {
    await sql.unsafe(`create database "${database.replace(/"/g, '""')}"`).catch(async (error: unknown) => {
      // Two first runs at once: the other one created it.
      const [now] = await sql`select 1 from pg_database where datname = ${database}`;
      if (!now) throw error;
    });
  }
} finally {
  await sql.end({ timeout: 5 });
}

const operator = postgresOperator();
await addOperator({ login: operator.login, name: operator.name, password: operator.password, by: 'e2e seed (postgres)' });
console.log(`seed (postgres): operator ${operator.login} in database ${database}`);
await storageFromEnv().close();
