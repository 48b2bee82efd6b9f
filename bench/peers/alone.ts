/**
 * GNL's overhead per checkpoint with nothing else in the process (issue 31): the peers' agent, plain and
 * under GNL directly and through the same counting proxy, alternately; then a completed run's answer both
 * ways (the proxy copies every byte in this process: GNL's answer is a 24 KB record, a workflow's a few
 * bytes, so what the proxy adds is not the same for each system); `--beside dbos|workflow` starts that
 * peer in the process too (started, not run). Beside `npm run bench:peers`, whose systems share one
 * process and interleave their runs, it shows what sharing costs GNL's figure.
 *   npx tsx bench/peers/alone.ts [RUNS=60] [--beside dbos|workflow]   (PEERS_DATABASE_URL as bench:peers)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { summary } from '../stats';
import { CHECKPOINTS, runPlain } from './agent';
import { databaseUrl, freshDatabases } from './databases';
import { DbosSystem } from './systems/dbos';
import { GnlSystem } from './systems/gnl';
import { WorkflowSystem } from './systems/workflow';
import { WireProxy } from './wire-proxy';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { beside: { type: 'string' } } });
const runs = Number(positionals[0] ?? 60);
const serverUrl = process.env.PEERS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const names = { gnl: 'gnl_peers_gnl', dbos: 'gnl_peers_dbos', workflow: 'gnl_peers_workflow' } as const;
await freshDatabases(serverUrl, Object.values(names));
const url = databaseUrl(serverUrl, names.gnl);
const target = { host: new URL(serverUrl).hostname, port: Number(new URL(serverUrl).port || 5432) };
const proxy = await WireProxy.start('gnl', target);
const direct = new GnlSystem({ url });
const proxied = new GnlSystem({ url: proxy.url(url) });
const beside =
  values.beside === 'dbos'
    ? await DbosSystem.launch({ url: databaseUrl(serverUrl, names.dbos) })
    : values.beside === 'workflow'
      ? await WorkflowSystem.start({ url: databaseUrl(serverUrl, names.workflow), watchUrl: databaseUrl(serverUrl, names.workflow) })
      : undefined;
const times: Record<'plain' | 'direct' | 'proxied', number[]> = { plain: [], direct: [], proxied: [] };
const timed = async (into: number[], work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  into.push(performance.now() - started);
};
try {
  for (let i = 0; i < runs + 10; i++) {
    await timed(times.plain, runPlain);
    await timed(times.direct, () => direct.run(`alone-${randomUUID()}`));
    await timed(times.proxied, () => proxied.run(`alone-${randomUUID()}`));
  }
  const median = (ms: number[]) => summary(ms.slice(10)).median; // the first ten warm up
  const plain = median(times.plain);
  console.log(`${runs} runs each, ${values.beside ? `${values.beside} started beside` : 'nothing else in the process'}; plain ${plain.toFixed(2)} ms a run`);
  for (const how of ['direct', 'proxied'] as const) {
    console.log(`GNL ${how.padEnd(7)} ${((median(times[how]) - plain) / CHECKPOINTS).toFixed(3)} ms a checkpoint over plain`);
  }
  const completed = `alone-answer-${randomUUID()}`;
  await direct.run(completed);
  const answers: Record<'direct' | 'proxied', number[]> = { direct: [], proxied: [] };
  for (let i = 0; i < runs * 5 + 10; i++) {
    await timed(answers.direct, () => direct.answer(completed));
    await timed(answers.proxied, () => proxied.answer(completed));
  }
  for (const how of ['direct', 'proxied'] as const) console.log(`GNL ${how.padEnd(7)} ${median(answers[how]).toFixed(3)} ms a completed run's answer`);
} finally {
  await Promise.all([direct.close(), proxied.close(), beside?.close()]);
  await proxy.close();
}
process.exit(0);
