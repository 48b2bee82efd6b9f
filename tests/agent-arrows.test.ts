/**
 * The arrows of the layers above the core (ARCHITECTURE.md), by reading the source:
 * lib/agents → lib/durable; lib/demo → lib/agents, lib/durable (and drizzle-orm's sql, for the demo's own
 * table of crash points); agents/ → lib/agents, lib/demo;
 * the app reaches them only through their index files; nothing below points up.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

const external = (spec: string) => spec === 'ai' || spec.startsWith('@ai-sdk/') || spec === 'zod' || spec.startsWith('node:');

function offenders(dirs: string[], allowed: (spec: string) => boolean): string[] {
  return dirs
    .flatMap((dir) => sourceFiles(path.join(root, dir)))
    .flatMap((file) =>
      imports(file)
        .filter((spec) => !allowed(spec))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
}

describe('import arrows above the core', () => {
  it('lib/agents imports the core through its index, and nothing else of GNL', () => {
    expect(sourceFiles(path.join(root, 'lib/agents')).length).toBeGreaterThan(3);
    // croner: the cron expressions of schedules (define-schedule.ts), a library with no dependencies.
    expect(offenders(['lib/agents'], (spec) => external(spec) || spec === 'croner' || spec.startsWith('./') || spec === '@/lib/durable')).toEqual([]);
  });

  it('lib/demo imports the core and lib/agents through their index files, and nothing else of GNL', () => {
    expect(
      offenders(
        ['lib/demo'],
        (spec) => external(spec) || spec.startsWith('./') || spec === '@/lib/durable' || spec === '@/lib/agents' || spec === 'drizzle-orm',
      ),
    ).toEqual([]);
  });

  it("lib/demo reaches its database by the shape it is handed (crash-point-store.ts), never storage's code", () => {
    const users = sourceFiles(path.join(root, 'lib/demo')).filter((file) => imports(file).includes('drizzle-orm'));
    expect(users.map((file) => path.relative(root, file))).toEqual(['lib/demo/crash-point-store.ts']);
  });

  it('agents/ (one file per agent) uses lib/agents, lib/demo and the core, never the app or storage', () => {
    expect(
      offenders(
        ['agents'],
        (spec) => external(spec) || spec.startsWith('./') || (/^@\/lib\/(agents|demo|durable)(\/|$)/.test(spec) && !spec.startsWith('@/lib/durable/')),
      ),
    ).toEqual([]);
  });

  it('the app reaches lib/agents and lib/demo through their index files only', () => {
    expect(offenders(['app', 'components', 'lib/studio'], (spec) => !/^@\/lib\/(agents|demo)\//.test(spec))).toEqual([]);
  });

  it('the core and storage never import the layers above them', () => {
    expect(offenders(['lib/durable', 'db'], (spec) => !/^@\/(lib\/(agents|demo|executor|studio)|agents)(\/|$)/.test(spec))).toEqual([]);
  });
});
