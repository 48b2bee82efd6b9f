/**
 * One door to a tool's execute (docs/runtime.md#the-door): lib/durable/tools/journaled-tool.ts is the only
 * code that reads a tool's `execute`, and the AI SDK's loops (which call a tool's execute themselves) run
 * only inside runDurable and streamDurable, on the door's tools. Every path (a run, a resume, a fork, a
 * restart, an import, a retry, a stream, and what comes: workflow steps, memory writes, the server) reaches
 * a side effect through them. This test reads the product's source so that no feature opens a door of its own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, sourceFiles } from './support/source-imports';

// Built output (packages/durable/dist: the package test builds it) is not source.
const PRODUCT = ['lib', 'agents', 'app', 'components', 'packages', 'bin']
  .flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))
  .filter((file) => !file.split(path.sep).includes('dist') && !file.endsWith('.d.ts'));
const rel = (file: string) => path.relative(repoRoot, file);

/** Reads of a tool's execute that are allowed, each with why. */
const ALLOWED_EXECUTE = [
  { file: 'lib/durable/tools/journaled-tool.ts', line: /tool\.execute\?\.bind\(tool\)|AnyTool\['execute'\]/, why: 'the door' },
  { file: 'lib/durable/tools/gnl-tool.ts', line: /typeof tool\.execute === 'function'/, why: 'declares whether a tool executes; calls nothing' },
  { file: 'lib/durable/stream/stream-durable.ts', line: /journaled\??\.execute/, why: 'calls the door’s own wrapper (journaledTool’s execute)' },
  { file: 'lib/durable/tools/journaled-tool.ts', line: /= journaled\.execute as/, why: 'callThroughDoor: a workflow step calls the door’s own wrapper' },
];
/** A database's execute (drizzle's db/tx), which is not a tool's. */
const DATABASE_EXECUTE = /\b(db|tx|sql)\.execute\(|database\(\)\)\.execute\(|\.execute\((statement|sql\b|runModelTokensStatement)/;

/** The AI SDK's functions that run tools' execute themselves. */
const SDK_LOOPS = /\b(generateText|streamText|ToolLoopAgent|Experimental_Agent|executeTool|runTools)\b/;
const LOOP_FILES = ['lib/durable/run/run-durable.ts', 'lib/durable/stream/stream-durable.ts'];

describe('one door to side effects', () => {
  it('reads the product’s source (the scan finds the files it guards)', () => {
    const names = PRODUCT.map(rel);
    for (const file of [...LOOP_FILES, 'lib/durable/tools/journaled-tool.ts']) expect(names).toContain(file);
    expect(PRODUCT.length).toBeGreaterThan(200);
  });

  it('only the door reads a tool’s execute', () => {
    const offenders: string[] = [];
    for (const file of PRODUCT) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (!/\??\.execute\b|\[['"]execute['"]\]/.test(line) || DATABASE_EXECUTE.test(line)) return;
        if (/^\s*(\*|\/\/)/.test(line)) return;
        if (ALLOWED_EXECUTE.some((allowed) => allowed.file === rel(file) && allowed.line.test(line))) return;
        offenders.push(`${rel(file)}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it('the SDK’s tool loops are imported only by runDurable and streamDurable, which hand them the door’s tools', () => {
    const importers = PRODUCT.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(/import\s+(?!type\b)\{([^}]*)\}\s+from\s+['"]ai['"]/g)].some((m) =>
        (m[1] as string).split(',').some((name) => !/^\s*type\s/.test(name) && SDK_LOOPS.test(name)),
      );
    }).map(rel);
    expect(importers.sort()).toEqual([...LOOP_FILES].sort());
    // runDurable's loop wraps every tool in the door before the SDK sees it.
    expect(readFileSync(path.join(repoRoot, 'lib/durable/run/run-durable.ts'), 'utf8')).toMatch(/journaledTool\(\{/);
  });

  it('catches a second door (the scan is not vacuous)', () => {
    const line = '  const out = await refund.execute(input, options);';
    expect(/\??\.execute\b/.test(line) && !DATABASE_EXECUTE.test(line)).toBe(true);
  });
});
