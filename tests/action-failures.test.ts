/**
 * Every action a Studio form sends (a `useMutation` of a server action) says what went wrong, whichever
 * way: the server's refusal in its answer, and the call itself failing (the session ended and the proxy
 * answered 401, the Studio restarted, the network dropped: the action throws). A form that rendered only
 * its answer left the button to come back in silence (components/inbox/action-feedback.tsx ActionFailure).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/source-imports';

function sources(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => path.join(dir, file));
}

describe('Studio forms', () => {
  it('render the failure of every action they send, not only its refusal', () => {
    const mutations: string[] = [];
    const silent: string[] = [];
    for (const file of [...sources('components'), ...sources('app')]) {
      const text = readFileSync(path.join(repoRoot, file), 'utf8');
      for (const [, name] of text.matchAll(/const (\w+) = useMutation\(/g)) {
        mutations.push(`${file}#${name}`);
        if (!new RegExp(`\\b${name}\\.error\\b`).test(text)) silent.push(`${file}#${name}`);
      }
    }
    expect(silent).toEqual([]);
    // The forms are found (a moved folder must not make this pass on nothing).
    expect(mutations.length).toBeGreaterThanOrEqual(25);
    expect(mutations).toEqual(expect.arrayContaining(['components/runs/run-actions.tsx#cancel', 'components/people/people-actions.tsx#roleChange']));
  });
});
