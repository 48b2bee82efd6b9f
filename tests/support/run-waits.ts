/** Waiting in tests on the journal's state, never on a guessed duration: a probe polled every 25 ms, for at most a minute. */
import type { Journal } from '@/lib/durable';

export async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 2_400; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Resolves once the run's summary has `wanted` as its status. */
export function untilStatus(journal: Pick<Journal, 'getRun'>, runId: string, wanted: string): Promise<true> {
  return until(`${runId} ${wanted}`, async () => ((await journal.getRun(runId))?.status === wanted ? true : undefined));
}
