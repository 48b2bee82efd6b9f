/**
 * Where the process's time goes, for a CPU profile (issue 31). One of:
 *   run [N]       the peers' 20-step agent under runDurable on Postgres, N runs one after another (200)
 *   answer [N]    one run of it, then N answers of it as a completed run (2000); `--alloc`: then what 1,000 more allocate
 *   resume [N]    a run of N recorded steps (the bench agent; its model throws at step N), resumed twice (500);
 *                 `--both`: each time also with every replayed step given its whole prompt (an onStepStart given);
 *                 `--profile DIR`: then one resume more under the profiler, written to DIR (that resume alone)
 *   workflow [N]  the peers' 20-step workflow (each step a side effect) under runWorkflow, N runs (200)
 * `node --import tsx --cpu-prof --cpu-prof-dir=DIR bench/profile.ts run 300`, then `node bench/profile-top.mjs DIR`.
 * DATABASE_URL names the server (default the local test database). Prints the time and the process CPU per unit.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineWorkflow, gnlTool, runDurable, runWorkflow } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { benchAgent } from './agent';
import { loopSettings, recordTool, scriptedModel } from './peers/agent';

const [mode = 'run', count] = process.argv.slice(2);
const storage = new PostgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
const tools = { record: gnlTool(recordTool(), { sideEffect: true }) };
const agentRun = (runId: string) => runDurable({ model: scriptedModel(), tools, ...loopSettings, runId, journal: storage.runs });

/** `n` calls of `once` after `warm` untimed ones; the wall time and the process's CPU per call. */
async function timed(what: string, n: number, warm: number, once: (i: number) => Promise<unknown>, per = 1): Promise<void> {
  for (let i = 0; i < warm; i++) await once(-1 - i);
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) await once(i);
  const ms = (performance.now() - started) / n / per;
  const used = process.cpuUsage(cpu);
  console.log(`${n} ${what}: ${ms.toFixed(3)} ms each, process CPU ${((used.user + used.system) / 1000 / n / per).toFixed(3)} ms each`);
}

/**
 * `--alloc`: what `n` more calls allocate, garbage included (the inspector's sampling heap profiler, every
 * 512 bytes, objects collected since kept in the sample): KB a call, and the sites that allocate most.
 */
async function allocations(what: string, n: number, once: () => Promise<unknown>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = 0; i < n; i++) await once();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  type Node = (typeof profile)['head'];
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: Node, caller: string) => {
    const frame = node.callFrame;
    const site = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '').replace(/.*\/work\/[^/]+\//, '')}`;
    // A builtin (Object.keys, Array.prototype.filter …) is named with the function that called it.
    const key = frame.url ? site : `${site.trim()} <- ${caller}`;
    total += node.selfSize;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, site);
  };
  walk(profile.head, '(root)');
  console.log(`${what}: ${(total / n / 1024).toFixed(1)} KB allocated a call (${n} calls)`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${(bytes / n / 1024).toFixed(2).padStart(7)} KB  ${site}`);
}

try {
  if (mode === 'run') {
    await timed('runs (per checkpoint: 41 a run)', Number(count ?? 200), 20, () => agentRun(`prof-${randomUUID()}`), 41);
  } else if (mode === 'answer') {
    const runId = `prof-answer-${randomUUID()}`;
    await timed('answers of a completed run', Number(count ?? 2000), 100, () => agentRun(runId));
    if (process.argv.includes('--alloc')) await allocations('answer', 1000, () => agentRun(runId));
  } else if (mode === 'resume') {
    const n = Number(count ?? 500);
    const runId = `prof-resume-${randomUUID()}`;
    // `whole`: an onStepStart given (it reads each step's messages), so every replayed step gets its whole
    // prompt, as every resume did before prompt-tail.ts: the same run resumed both ways, alternately.
    const until = async (whole = false) => {
      let reached: number | undefined;
      const started = performance.now();
      const agent = benchAgent({
        steps: n + 5,
        stopAt: n,
        onModelCall: (step) => {
          if (step === n) reached ??= performance.now();
        },
      });
      await runDurable({ ...agent, runId, journal: storage.runs, ...(whole ? { onStepStart: () => {} } : {}) }).catch(() => undefined);
      return (reached ?? Number.NaN) - started;
    };
    console.log(`recorded ${n} steps in ${(await until()).toFixed(0)} ms`);
    for (let i = 0; i < 2; i++) {
      for (const whole of process.argv.includes('--both') ? [false, true] : [false]) {
        const ms = await until(whole);
        const how = whole ? 'whole prompts (onStepStart given)' : 'tails of prompts';
        console.log(`resume to step ${n}, ${how}: ${ms.toFixed(0)} ms, ${(ms / n).toFixed(2)} ms a recorded step`);
      }
    }
    // `--profile DIR`: one more resume under the inspector's profiler, that resume alone (not the recording).
    const dir = process.argv[process.argv.indexOf('--profile') + 1];
    if (process.argv.includes('--profile') && dir) {
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      const ms = await until();
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `resume-${n}.cpuprofile`), JSON.stringify(profile));
      console.log(`resume to step ${n}, profiled: ${(ms / n).toFixed(2)} ms a recorded step; node bench/profile-top.mjs ${dir}`);
    }
  } else if (mode === 'workflow') {
    const workflow = defineWorkflow({
      name: 'profile-steps',
      input: z.object({}),
      run: async (wf) => {
        let recorded = 0;
        for (let n = 0; n < 20; n++)
          if ((await wf.step(`record-${n}`, { input: { n }, sideEffect: true }, async () => ({ recorded: `item-${n}` }))).recorded) recorded++;
        return recorded;
      },
    });
    const once = () => runWorkflow<number>({ workflow, runId: `prof-wf-${randomUUID()}`, input: {}, journal: storage.runs });
    await timed('workflows (per step: 20 a workflow)', Number(count ?? 200), 20, once, 20);
  } else {
    throw new Error(`bench/profile.ts: unknown mode "${mode}" (run, answer, resume, workflow)`);
  }
} finally {
  await storage.close();
}
