/**
 * The floor under "overhead per checkpoint" (issue 31): a one-row INSERT and its commit through postgres.js,
 * direct and through the benchmark's counting proxy (bench/peers/wire-proxy.ts), median of 400, three rounds.
 * A runtime that makes every checkpoint durable before the next pays at least this per checkpoint.
 * `npx tsx bench/peers/commit-floor.ts`
 */
import { postgresInsertFloor } from '../floors';
import { WireProxy } from './wire-proxy';

const url = process.env.PEERS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const target = { host: new URL(url).hostname, port: Number(new URL(url).port || 5432) };
const proxy = await WireProxy.start('floor', target);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
try {
  for (let round = 1; round <= 3; round++) {
    const direct = median(await postgresInsertFloor(url, 400));
    const proxied = median(await postgresInsertFloor(proxy.url(url), 400));
    console.log(`round ${round}: one-row INSERT + commit, direct ${direct.toFixed(3)} ms, through the proxy ${proxied.toFixed(3)} ms`);
  }
} finally {
  await proxy.close();
}
