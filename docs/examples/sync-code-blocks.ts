/**
 * The guides' code blocks are copies of #regions of the example files the tests run. A block preceded
 * by a marker names its region:
 *
 *   <!-- example: docs/examples/support-worker.ts#after -->
 *   ```ts
 *   …the lines between `// #region after` and the next `// #endregion` of that file…
 *   ```
 *
 * `syncCodeBlocks` rewrites each marked block from its region; code-blocks.test.ts fails when a guide
 * differs from what it would write. After editing an example, rewrite the guides:
 *
 *   node --import tsx docs/examples/sync-code-blocks.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DOCS = path.join(ROOT, 'docs');
const MARKER = /^<!-- example: (docs\/examples\/[\w-]+\.ts)#([\w-]+) -->$/;

export function guideFiles(): string[] {
  return readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(DOCS, name));
}

/** The lines between `// #region NAME` and the next `// #endregion`, without their common indentation. */
export function region(source: string, name: string): string {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  if (start < 0) throw new Error(`no region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '// #endregion');
  if (end < 0) throw new Error(`region ${name} is not closed`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(
    ...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length),
  );
  return body.map((l) => l.slice(indent)).join('\n');
}

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The example region named by the marker before the fence, if any. */
  source?: { file: string; region: string };
}

/** Rewrites every marked code block from its region; lists every block found. */
export function syncCodeBlocks(markdown: string): { text: string; blocks: CodeBlock[] } {
  const lines = markdown.split('\n');
  const out: string[] = [];
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = /^```(\w*)\s*$/.exec(line);
    if (!fence) {
      out.push(line);
      continue;
    }
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`unclosed code block at line ${i + 1}`);
    const previous = [...out].reverse().find((l) => l.trim() !== '');
    const marker = previous ? MARKER.exec(previous) : null;
    const source = marker ? { file: marker[1] as string, region: marker[2] as string } : undefined;
    blocks.push({ line: i + 1, lang: fence[1] as string, source });
    const body = source
      ? region(readFileSync(path.join(ROOT, source.file), 'utf8'), source.region).split('\n')
      : lines.slice(i + 1, end);
    out.push(line, ...body, '```');
    i = end;
  }
  return { text: out.join('\n'), blocks };
}

if (process.argv[1] === import.meta.filename) {
  for (const file of guideFiles()) {
    const before = readFileSync(file, 'utf8');
    const { text } = syncCodeBlocks(before);
    if (text !== before) {
      writeFileSync(file, text);
      console.log(`rewrote the code blocks of ${path.relative(ROOT, file)}`);
    }
  }
}
