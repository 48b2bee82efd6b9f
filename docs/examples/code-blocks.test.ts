/**
 * The guides cannot drift from the code the test suite runs: every TypeScript block in docs/*.md is
 * preceded by a marker naming a #region of an example file, and is exactly that region's text
 * (sync-code-blocks.ts explains the marker and rewrites the blocks).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS, guideFiles, syncCodeBlocks } from './sync-code-blocks';

describe('the guides show the code the tests run', () => {
  it('the three guides are there', () => {
    const names = guideFiles().map((file) => path.basename(file));
    expect(names).toEqual(
      expect.arrayContaining(['resume-after-crash.md', 'tool-ran-twice.md', 'human-approval.md']),
    );
  });

  for (const file of guideFiles()) {
    const name = path.relative(DOCS, file);
    it(`${name}: every TypeScript block is a marked region of an example, verbatim`, () => {
      const markdown = readFileSync(file, 'utf8');
      const { text, blocks } = syncCodeBlocks(markdown);
      const unmarked = blocks
        .filter((b) => (b.lang === 'ts' || b.lang === 'typescript') && !b.source)
        .map((b) => `${name}:${b.line}`);
      expect(unmarked, 'TypeScript blocks without an example marker').toEqual([]);
      expect(
        text,
        `${name} differs from its examples: run node --import tsx docs/examples/sync-code-blocks.ts`,
      ).toBe(markdown);
    });
  }
});
