/**
 * The command line's arrows (ARCHITECTURE.md), by reading the source: lib/cli sits on top, beside the
 * app, and reaches every layer through its index (executor, accounts, storage, the core, agents, the
 * demo's crash points); nothing imports it but bin/gnl.mjs.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

// '@/package.json': the manifest, for --version.
const ALLOWED = new Set([
  '@/package.json',
  '@/lib/executor',
  '@/lib/accounts',
  '@/lib/durable/storage',
  '@/lib/durable',
  '@/agents',
  // The agent layer's readers of a registry (toolOutputSchema).
  '@/lib/agents',
  '@/lib/demo',
  // The visible-text table the Studio shares (pure: no Node, no DOM).
  '@/lib/text',
  // Prices and cost (pure), and the price files (docs/operations.md#cost).
  '@/lib/cost',
  '@/lib/cost/price-file',
  // The HTTP API, served without the Studio (gnl serve).
  '@/lib/server',
  'commander',
]);

describe('command line import arrows', () => {
  it('lib/cli reaches the layers below through their index files only', () => {
    const offenders = sourceFiles(path.join(root, 'lib/cli')).flatMap((file) =>
      imports(file)
        .filter((spec) => !(spec.startsWith('./') || spec.startsWith('node:') || ALLOWED.has(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('nothing else imports lib/cli (bin/gnl.mjs runs it)', () => {
    const others = ['lib', 'app', 'components', 'agents', 'db']
      .flatMap((dir) => sourceFiles(path.join(root, dir)))
      .filter((f) => !f.includes(`${path.sep}lib${path.sep}cli${path.sep}`));
    const offenders = others.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('@/lib/cli'))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
