/**
 * The Studio server's executor: runs started or resumed from the Studio execute in the server process,
 * in the background (they go on when the browser closes), through the same queue and leases as workers.
 * One per process, kept on globalThis (Next.js reloads modules; the executor must not be duplicated).
 * On the embedded journal it is the only executor: at start it also takes up the runs a previous
 * server process left runnable (after a crash, the supervisor restarts the server and the runs go on).
 *
 * The Studio's boot makes it, with the deployment's registry: `getExecutor({ registry, … })`. Server actions
 * then call `getExecutor().startRun(…)` / `.resumeRun(runId, { by, reason })`; cancel, abandon and restart
 * are the plain functions of `@/lib/executor`.
 */
import { Executor, type ExecutorOptions } from './executor';

const key = Symbol.for('gnl.executor.inProcess');

/**
 * This process's executor; the first call makes and starts it with `options` (later calls' options are
 * ignored). Asked before anyone made it, without options, it says so: it would not know which agents to run.
 */
export function getExecutor(options?: ExecutorOptions): Executor {
  const global = globalThis as Record<symbol, Executor | undefined>;
  if (!global[key] && !options)
    throw new Error(
      "This process has no executor yet: make it first with getExecutor({ registry, … }) (the Studio's boot does, with the deployment's agents).",
    );
  global[key] ??= new Executor({ concurrency: 4, ...(options as ExecutorOptions) }).start();
  return global[key];
}

/** Stops this process's executor (tests, shutdown); the next getExecutor() makes a new one. */
export async function stopExecutor(options: { graceMs?: number } = {}): Promise<string[]> {
  const global = globalThis as Record<symbol, Executor | undefined>;
  const executor = global[key];
  global[key] = undefined;
  return executor ? executor.stop(options) : [];
}
