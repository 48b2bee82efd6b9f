/** Timed runs: the plain agent and each durable system interleaved, each run's statements counted on the wire. */
import { randomUUID } from 'node:crypto';
import { CHECKPOINTS, runPlain } from './agent';
import type { DurableSystem } from './system';
import type { WireProxy } from './wire-proxy';

export interface Measured {
  system: DurableSystem;
  proxy: WireProxy;
  runMs: number[];
  runStatements: number[];
  answerMs: number[];
  answerStatements: number[];
}

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function counted(proxy: WireProxy, work: () => Promise<unknown>): Promise<{ ms: number; statements: number }> {
  const before = proxy.counts.statements;
  const ms = await timed(work);
  return { ms, statements: proxy.counts.statements - before };
}

export async function measure(
  entries: { system: DurableSystem; proxy: WireProxy }[],
  options: { runs: number; warmup: number; log: (line: string) => void },
): Promise<{ plainMs: number[]; measured: Measured[] }> {
  const measured: Measured[] = entries.map((e) => ({ ...e, runMs: [], runStatements: [], answerMs: [], answerStatements: [] }));
  const completed = new Map<Measured, string[]>(measured.map((m) => [m, []]));
  for (let i = 0; i < options.warmup; i++) {
    await runPlain();
    for (const m of measured) {
      const runId = `peers-warmup-${randomUUID()}`;
      await m.system.run(runId);
      completed.get(m)?.push(runId);
    }
  }
  options.log(
    `timed: ${options.runs} runs of the ${CHECKPOINTS}-checkpoint agent each way, interleaved (plain, ${measured.map((m) => m.system.name).join(', ')})`,
  );
  const plainMs: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    plainMs.push(await timed(runPlain));
    for (const m of measured) {
      const runId = `peers-${randomUUID()}`;
      const { ms, statements } = await counted(m.proxy, () => m.system.run(runId));
      m.runMs.push(ms);
      m.runStatements.push(statements);
      completed.get(m)?.push(runId);
    }
  }
  options.log('timed: answers for runs already completed');
  for (let i = 0; i < options.runs; i++) {
    for (const m of measured) {
      const done = completed.get(m) ?? [];
      const runId = done[i % done.length] as string;
      const { ms, statements } = await counted(m.proxy, () => m.system.answer(runId));
      m.answerMs.push(ms);
      m.answerStatements.push(statements);
    }
  }
  return { plainMs, measured };
}
