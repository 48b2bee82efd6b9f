/**
 * The run projection is the only fold of a run's journal: outside its modules no source branches on an
 * event's type (a `case 'tool-call-start':`, an `event.type === 'run-fail'`), so a new event type or a
 * changed rule has one place to go and the readers (runDurable, the gate, the summary, the resume
 * preview, the operator actions, the executor, the timeline, the CLI) cannot drift apart again.
 * Renderers are the exception, named below: they draw each event on its own and carry no state.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { USER_DATA } from '@/lib/durable/journal';
import { repoRoot, sourceFiles } from '@/tests/support/source-imports';

/** The projection's modules: the folds themselves. */
const PROJECTION = [
  'lib/durable/projection/run-state.ts',
  'lib/durable/projection/run-plan.ts',
  'lib/durable/projection/call-history.ts',
  'lib/durable/projection/run-totals.ts',
  'lib/durable/projection/run-summary.ts',
  // A fork's plan: what of a parent's journal a fork copies, and the side effects after the fork point.
  'lib/durable/fork/fork-plan.ts',
  // A workflow's fork: the same, by its primitives (steps, waits, children) instead of model steps.
  'lib/durable/fork/workflow-fork-plan.ts',
  // The run on its clock: invocations (how each began and ended) and the waterfall's bars and gaps.
  'lib/durable/projection/run-invocations.ts',
  'lib/durable/projection/run-waterfall.ts',
];

/** Modules that branch on an event's type for another reason than folding a run, each with it. */
const ALLOWED: Record<string, string> = {
  'lib/durable/sealing/secret-journal.ts': "sealing: each type's user data, event by event",
  'lib/durable/export/run-export.ts': "an export file's shape: a run-start first, and only first",
  'lib/durable/storage/run-import.ts': "an imported run's shape: a run-start first, and only first",
  'lib/durable/storage/event-rows.ts': "a row's layout: a run-complete's answer kept in its own json column",
  'components/timeline/timeline-event.tsx': 'a renderer: draws one event',
  'components/timeline/tool-call-body.tsx': 'a renderer: draws one tool event',
  'lib/cli/timeline.ts': 'a renderer: one line per event',
  'components/timeline/compact-event.tsx': 'a renderer: the Studio’s one line per event',
};

const EVENT_TYPES = Object.keys(USER_DATA);
const literal = `'(${EVENT_TYPES.map((t) => t.replace(/-/g, '\\-')).join('|')})'`;
/** `case 'run-fail':`, `.type === 'run-fail'`, `type !== 'run-fail'`, `'run-fail' === x.type`. */
const BRANCH = new RegExp(`case\\s+${literal}\\s*:|\\btype\\s*[!=]==?\\s*${literal}|${literal}\\s*[!=]==?\\s*[\\w.?]*\\btype\\b`);

/** The source without its comments (an example in a doc comment is no branch). */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('the run projection is the only fold', () => {
  it('no module outside the projection branches on an event type, renderers aside', () => {
    const files = ['lib', 'app', 'components', 'scripts', 'bin'].flatMap((dir) => sourceFiles(path.join(repoRoot, dir)));
    expect(files.length).toBeGreaterThan(100);
    const rel = (file: string) => path.relative(repoRoot, file);
    const branching = files.filter((file) => !/\.test\.tsx?$/.test(file)).filter((file) => BRANCH.test(withoutComments(readFileSync(file, 'utf8'))));
    const offenders = branching.map(rel).filter((file) => !PROJECTION.includes(file) && !(file in ALLOWED));
    expect(offenders).toEqual([]);
    // The lists stay true: every module they name exists and still branches (else it leaves the list).
    expect(
      branching
        .map(rel)
        .filter((file) => PROJECTION.includes(file) || file in ALLOWED)
        .sort(),
    ).toEqual([...PROJECTION, ...Object.keys(ALLOWED)].sort());
  });

  it('the pattern catches each form of a branch on an event type', () => {
    for (const text of ["case 'tool-call-start':", "if (event.type === 'run-fail')", "e.type !== 'model-step'", "'run-suspend' === event.type"]) {
      expect(BRANCH.test(text), text).toBe(true);
    }
    for (const text of ["case 'unknown-run':", "part.type === 'tool-call'", "item.kind === 'approval'"]) expect(BRANCH.test(text), text).toBe(false);
  });
});
