/**
 * npm run bench:peers [-- --quick]: the same scripted 20-step agent under GNL and under its peers, in one
 * run, on the same local Postgres (each system in its own database, through its own counting proxy).
 * PEERS_DATABASE_URL names the server (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { z } from 'zod';
import { summary } from '../stats';
import { crashScenario } from './crash';
import { databaseUrl, freshDatabases } from './databases';
import { measure } from './measure';
import { markdown, measuredRow, type SystemRow, writePeersResults } from './report';
import type { DurableSystem } from './system';
import { DbosSystem } from './systems/dbos';
import { GnlSystem } from './systems/gnl';
import { WorkflowSystem } from './systems/workflow';
import { WireProxy } from './wire-proxy';
import { measureWorkflowSteps, stepRowsMarkdown } from './workflow-steps';

const Args = z.object({ quick: z.boolean() });
const args = Args.parse({ quick: process.argv.includes('--quick') });
const serverUrl = z
  .string()
  .startsWith('postgres')
  .parse(process.env.PEERS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const RUNS = args.quick ? 8 : 30;
const WARMUP = args.quick ? 2 : 3;
const log = (line: string) => console.log(`[bench:peers] ${line}`);

const DBS = { gnl: 'gnl_peers_gnl', dbos: 'gnl_peers_dbos', workflow: 'gnl_peers_workflow' } as const;
await freshDatabases(serverUrl, Object.values(DBS));
const target = { host: new URL(serverUrl).hostname, port: Number(new URL(serverUrl).port || 5432) };

const entries: { system: DurableSystem; proxy: WireProxy }[] = [];
const notMeasured: { name: string; reason: string; key: keyof typeof DBS }[] = [];
const proxies: WireProxy[] = [];
const proxyOf = new Map<keyof typeof DBS, WireProxy>();
async function open(key: keyof typeof DBS, name: string, start: (url: string) => Promise<DurableSystem>) {
  const proxy = await WireProxy.start(key, target);
  proxies.push(proxy);
  proxyOf.set(key, proxy);
  try {
    entries.push({ system: await start(proxy.url(databaseUrl(serverUrl, DBS[key]))), proxy });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^not measured: /, '') : String(error);
    log(`${name}: not measured: ${reason}`);
    notMeasured.push({ name, reason, key });
  }
}
await open('gnl', 'GNL', async (url) => new GnlSystem({ url }));
// The same runtime with each run followed live from another storage (the Studio's way), on the same proxy.
{
  const proxy = proxyOf.get('gnl') as WireProxy;
  entries.push({ system: new GnlSystem({ url: proxy.url(databaseUrl(serverUrl, DBS.gnl)), followUrl: databaseUrl(serverUrl, DBS.gnl) }), proxy });
}
await open('dbos', 'DBOS 5.3', (url) => DbosSystem.launch({ url }));
await open('workflow', 'Vercel Workflow 4.8', (url) => WorkflowSystem.start({ url, watchUrl: databaseUrl(serverUrl, DBS.workflow) }));

const { plainMs, measured } = await measure(entries, { runs: RUNS, warmup: WARMUP, log });
log(`timed: a workflow step beside a DBOS step and a Vercel Workflow step, ${RUNS} runs each way`);
const gnlProxy = proxyOf.get('gnl') as WireProxy;
const dbosMeasured = entries.some((e) => e.system.name.startsWith('DBOS'));
const stepRows = await measureWorkflowSteps({
  gnl: { url: gnlProxy.url(databaseUrl(serverUrl, DBS.gnl)), proxy: gnlProxy },
  dbos: dbosMeasured ? { proxy: proxyOf.get('dbos') as WireProxy } : undefined,
  workflow: (() => {
    const entry = entries.find((e) => e.system instanceof WorkflowSystem);
    return entry ? { system: entry.system as WorkflowSystem, proxy: entry.proxy } : undefined;
  })(),
  runs: RUNS,
  warmup: WARMUP,
});
await Promise.all(entries.map((e) => e.system.close()));
await Promise.all(proxies.map((p) => p.close()));

log('crash row: SIGKILL inside a side effect, then a new process recovers');
const plainMedianMs = summary(plainMs).median;
const rows: SystemRow[] = [];
const keyOf = (name: string) => (name.startsWith('GNL') ? 'gnl' : name.startsWith('DBOS') ? 'dbos' : 'workflow');
const crashes = new Map<string, Awaited<ReturnType<typeof crashScenario>>>();
for (const m of measured) {
  const key = keyOf(m.system.name);
  // The followed GNL is the same runtime: its crash row is GNL's, not a second scenario.
  if (!crashes.has(key)) crashes.set(key, await crashScenario(key, databaseUrl(serverUrl, DBS[key])));
  rows.push(measuredRow(m, plainMedianMs, crashes.get(key) as Awaited<ReturnType<typeof crashScenario>>));
}
for (const n of notMeasured) {
  rows.push({
    system: n.name,
    measured: false,
    reason: n.reason,
    crash: { verdict: 'not measured', count: null, crashed: '', recovered: null, summary: `not measured: ${n.reason}` },
  });
}

const command = `npm run bench:peers${args.quick ? ' -- --quick' : ''}`;
const notes = [
  'Overhead per checkpoint = (durable run − median plain run) / 41, per run; it includes each run’s fixed costs (start, completion) spread over its checkpoints.',
  'Statements are counted on the wire by a proxy per system that parses the PostgreSQL frontend protocol: each simple Query and each extended-protocol Execute counts one, whatever the driver (postgres.js for GNL, pg for DBOS). Everything a system sends while a run is timed counts, background polling included. Every system pays the same proxy hop.',
  'DBOS 5.3 ships no AI SDK middleware: generateText runs inside a DBOS workflow, each model call a DBOS step (a language-model middleware whose wrapGenerate is DBOS.runStep) and each tool call a DBOS step.',
  'The answer for a completed run: the call that started the run, made again with the same id (GNL runDurable with the same runId; DBOS startWorkflow with the same workflowID, then getResult).',
  'Vercel Workflow 4.8 has no compiler step here: its workflow bundle is written by hand as the SWC plugin would emit it (bench/peers/systems/workflow-bundle-entry.ts: generateText inside the workflow VM, each model call and tool call a step via WORKFLOW_USE_STEP), bundled with esbuild, steps registered with registerStepFunction, and the Postgres world (graphile-worker queue) delivers to an HTTP server in the benchmark process. @workflow/ai 6.0.0 (its DurableAgent) is not used: it is deprecated on npm and its peer is ai ^6, not ai v7. The end of a run is watched on a connection of the benchmark’s own (not counted); the answer is getRun(id).returnValue.',
  'SIGKILL row: the tool counts each execution at an HTTP counter in the benchmark process; the process is SIGKILLed in step 5’s effect once counted, before the tool returns. A new process recovers the run (GNL: runDurable again with the same runId; DBOS: launch, which recovers its pending workflows; Vercel Workflow: the Postgres world’s start, which re-enqueues active runs).',
];
notes.push(
  'Workflow step: the same 20-step workflow (each step a side effect returning a small value) under GNL runWorkflow on PostgresStorage and as a DBOS workflow of 20 DBOS.runStep calls; ms per step = (median run − median plain loop) / 20; statements counted by the same proxies.',
);
const files = writePeersResults(rows, { runs: RUNS, plainMedianMs, command, notes, workflowSteps: stepRows });
console.log(`\n${markdown(rows, { runs: RUNS, plainMedianMs, command })}\n\n${stepRowsMarkdown(stepRows)}`);
log(`results: ${files.json}, ${files.md}`);
process.exit(0);
