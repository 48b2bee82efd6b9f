/**
 * The executor layer's arrows (ARCHITECTURE.md), by reading the source: lib/executor → lib/agents,
 * lib/demo (crash points), lib/durable/storage and lib/durable, each through its index; nothing below
 * imports it. It runs the registry its caller hands it: only worker-main.ts, `npm run worker`'s entry,
 * names the deployment's agents (agents/).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, resolveImport, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

// '@/agents': worker-main.ts alone (the test below). prom-client: metrics.ts, the Prometheus exposition.
// The OpenTelemetry SDK: trace-export.ts, the span export of the worker and the Studio's server.
const ALLOWED = new Set([
  '@/agents',
  '@/lib/agents',
  '@/lib/demo',
  '@/lib/durable',
  '@/lib/durable/storage',
  'drizzle-orm',
  'prom-client',
  '@opentelemetry/api',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace',
]);

/** A relative import that stays in the layer: a file of lib/executor or of one of its rooms. */
const withinLayer = (file: string, spec: string) => {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return false;
  const target = resolveImport(file, spec);
  return target !== undefined && path.relative(root, target).startsWith(`lib${path.sep}executor${path.sep}`);
};

describe('executor import arrows', () => {
  it('lib/executor reaches the layers below through their index files', () => {
    const offenders = sourceFiles(path.join(root, 'lib/executor')).flatMap((file) =>
      imports(file)
        .filter((spec) => !(withinLayer(file, spec) || spec.startsWith('node:') || spec === 'ai' || spec === 'zod' || ALLOWED.has(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the deployment's agents are named by the worker's entry alone, every other file is handed its registry", () => {
    const offenders = sourceFiles(path.join(root, 'lib/executor'))
      .filter((file) => path.basename(file) !== 'worker-main.ts')
      .filter((file) => imports(file).some((spec) => spec === '@/agents' || spec.startsWith('@/agents/')))
      .map((file) => path.relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('nothing below the executor layer imports it', () => {
    const below = ['lib/durable', 'lib/agents', 'lib/demo', 'agents', 'db'].flatMap((dir) => sourceFiles(path.join(root, dir)));
    const offenders = below.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('@/lib/executor'))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
