/**
 * The order vitest starts test files in: the slowest first, so the last minutes of a run are not one
 * long file on one core while the other waits (longest-processing-time first).
 *
 * vitest sorts by the durations it cached on the last run on this machine; a fresh clone (CI) has no
 * cache and would start files in glob order, which put the explorer and the crash suite (about 3 minutes
 * each) at the very end: measured 956 s for a run whose files add up to 1,472 s on 2 workers
 * (docs/testing.md). Without a cached duration a file is placed by the kind of suite it is, from that
 * profile: the SIGKILL explorer and crash suites, then the suites that spawn processes (the CLI, the
 * fault and worker suites), then the rest, larger files first.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Path patterns, slowest kind first (from the per-file profile in docs/testing.md). */
export const SLOW_FIRST: readonly RegExp[] = [
  /^e2e\/(explorer|crash)\//,
  /^lib\/cli\/|^e2e\/faults\/|^lib\/executor\/(\w+\/)?(bulk|workers|schedule-workers|timer-workers)\.test\.ts$/,
];

export function kindRank(file: string): number {
  const rank = SLOW_FIRST.findIndex((pattern) => pattern.test(file));
  return rank === -1 ? SLOW_FIRST.length : rank;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) => cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`);
    // Durations from this machine's last run order every file when they are there (vitest's own order).
    if (files.every((spec) => known(spec))) return super.sort(files);
    const keyed = files.map((spec) => {
      const file = relative(root, spec.moduleId);
      return { spec, rank: kindRank(file), duration: known(spec)?.duration ?? -1, size: statSync(spec.moduleId).size };
    });
    keyed.sort((a, b) => a.rank - b.rank || b.duration - a.duration || b.size - a.size);
    return keyed.map(({ spec }) => spec);
  }
}
