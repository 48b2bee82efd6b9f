/**
 * A value nested as deep as the journal accepts is stored (docs/limits.md: MAX_JSON_DEPTH levels, the
 * event's payload one of them, so a tool's output may have one less): encoded, hashed in its canonical
 * form, a secret at its bottom sealed, cut into a row and bodies stored apart, resolved, decoded and its
 * envelopes opened, in the journal's order, on a process's own stack. Each of those walks recurses once a
 * level, so the promise holds only if a level costs few frames. A fresh process runs them cold (its code
 * not yet optimized: the largest frames), on 900 KB of stack where Node gives 984. Before, the codec
 * spent six frames a level (Array.from and its callback among them), the read of a row with references
 * four (forEach and its callback): a Map and Set value at the limit overflowed the default stack itself,
 * a RangeError instead of a stored value (seen red in the journal's property test, whose frames were warm
 * most runs). Measured with the bundle this test runs: the tightest walk (a Map and Set value at the limit
 * with a leaf stored apart, split into its row: about 2,500 levels once encoded) fails at 700 KB.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childArgs, ROOT } from '@/tests/support/child-bundles';
import { MAX_JSON_DEPTH } from './json-codec';

/** The child's one JSON line: what it did on a stack of `stackKb`, with values `depth` levels deep. */
function deepChild(depth: number, stackKb: number): Promise<{ ok: boolean; done: string[]; at?: string; error?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childArgs('tests/support/deep-json-child.ts', `--stack-size=${stackKb}`), String(depth)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(new Error(`the deep-json child exited ${code} without its line: ${out}${err}`, { cause: error }));
      }
    });
  });
}

describe('values at the deepest nesting the journal accepts, on a cold process', () => {
  it(`an output nested ${MAX_JSON_DEPTH - 1} levels (objects and arrays; Maps and Sets; with a leaf stored apart; with a secret sealed at the bottom): stored and read back equal on 900 KB of stack`, async () => {
    expect(await deepChild(MAX_JSON_DEPTH - 1, 900)).toEqual({
      ok: true,
      done: ['objects', 'collections', 'collections, a big leaf', 'objects, a secret at the bottom', 'collections, a secret at the bottom'],
    });
  });

  it(`one level more is refused with the journal's error naming the limit, not a stack overflow`, async () => {
    const refused = await deepChild(MAX_JSON_DEPTH + 1, 900);
    expect(refused).toMatchObject({ ok: false, at: 'objects: encodeJson' });
    expect(refused.error).toMatch(/^JournalDataError: .*nested deeper than 1000 levels \(MAX_JSON_DEPTH\)/);
  });
});
