/**
 * The command line shows what will execute: a real `gnl` process lists, shows and approves runs whose
 * run id, goal, tool arguments, model text and operator's reason hold the hidden characters of
 * tests/support/spoofed-text.ts (the table the Studio's e2e uses), and prints each as a \u escape,
 * never raw.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { PGliteStorage } from '@/lib/durable/storage';
import { hasHidden } from '@/lib/text';
import { gnl } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';
import { asTerminalEscapes, SPOOFED, SPOOFED_CODE_POINTS, SPOOFED_RUNS, seedSpoofed, spoofedArguments } from '@/tests/support/spoofed-text';

const ids = { waiting: `cli-${SPOOFED_RUNS.waiting.runId}`, completed: `cli-${SPOOFED_RUNS.completed.runId}` };
const escaped = { waiting: `cli-${asTerminalEscapes(SPOOFED_RUNS.waiting.marked)}`, completed: `cli-${asTerminalEscapes(SPOOFED_RUNS.completed.marked)}` };
/** The table's strings one a line, as `quoted` prints a model's text or a prompt. */
const linesEscaped = SPOOFED.map((entry) => asTerminalEscapes(entry.marked)).join('\\n');

/** No character of the table reaches the terminal as itself. */
function expectNothingHidden(output: string, what: string) {
  expect(hasHidden(output.replaceAll('\n', '')), what).toBe(false);
  const raw = SPOOFED_CODE_POINTS.filter((codePoint) => output.includes(String.fromCodePoint(codePoint)));
  expect(
    raw.map((c) => `U+${c.toString(16).toUpperCase()}`),
    what,
  ).toEqual([]);
}

describe('gnl shows hidden characters as escapes', { timeout: 300_000 }, () => {
  const dataDir = tempDataDir();
  const env = { GNL_DATA_DIR: dataDir };
  beforeAll(async () => {
    const storage = new PGliteStorage({ dataDir });
    try {
      await seedSpoofed(storage, ids);
    } finally {
      await storage.close();
    }
  });

  it('show: the run id, goal, arguments, model text, who rejected and why, each hidden character escaped', async () => {
    const waiting = await gnl(['show', ids.waiting, '--full'], { env });
    expect(waiting.code, waiting.stderr).toBe(0);
    expectNothingHidden(waiting.stdout, 'show waiting');
    expect(waiting.stdout).toContain(`Run       ${escaped.waiting}`);
    expect(waiting.stdout).toContain(`prompt: "Pay these:\\n${linesEscaped}"`);
    expect(waiting.stdout).toContain(`text: "${linesEscaped}"`);
    // Above the commands that decide it, as the Studio's inbox card says it (JSON escapes C0 itself: 3 fewer).
    const hidden = SPOOFED.reduce((n, entry) => n + entry.codes.length, 0) - 3;
    expect(waiting.stdout).toMatch(
      new RegExp(
        `^ {4}! Its arguments hold ${hidden} invisible or direction-changing characters \\((U\\+[0-9A-F]{4,6}, ){8}and \\d+ more\\): shown as \\\\u escapes above\\.\\n {2}gnl approve `,
        'm',
      ),
    );
    // Arguments are JSON: C0 controls are JSON's own escapes there (\r, \u0007), and past the BMP a surrogate pair.
    for (const entry of SPOOFED.filter((e) => e.key !== 'controls' && !e.codes.some((code) => code.length > 6))) {
      expect(waiting.stdout).toContain(`"${entry.key}":"${asTerminalEscapes(entry.marked)}"`);
    }

    const completed = await gnl(['show', ids.completed, '--full'], { env });
    expect(completed.code, completed.stderr).toBe(0);
    expectNothingHidden(completed.stdout, 'show completed');
    expect(completed.stdout).toContain(`Run       ${escaped.completed}`);
    expect(completed.stdout).toContain(`by ${asTerminalEscapes(SPOOFED_RUNS.rejectedByMarked)}`);
    expect(completed.stdout).toContain(`reason: "${asTerminalEscapes(SPOOFED_RUNS.reasonMarked)}"`);
    expect(completed.stdout).toContain(`text: "${linesEscaped}"`);
  });

  it('--json escapes them too, and the values read back are the journaled ones', async () => {
    const shown = await gnl(['show', ids.waiting, '--json'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expectNothingHidden(shown.stdout, 'show --json');
    const data = JSON.parse(shown.stdout);
    expect(data.run.runId).toBe(ids.waiting);
    expect(data.run.pending[0].input).toEqual(spoofedArguments());
  });

  it('list and approve name the run by its escaped id, and the approval is recorded on the real run', async () => {
    const listed = await gnl(['list', '--status', 'waiting-approval'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expectNothingHidden(listed.stdout, 'list');
    expect(listed.stdout).toMatch(new RegExp(`^${escaped.waiting.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}\\s+waiting-approval`, 'm'));

    const approved = await gnl(['approve', ids.waiting, 'call-transfer', '--by', 'alice@example.com'], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expectNothingHidden(approved.stdout, 'approve');
    expect(approved.stdout).toContain(`Approved transfer (call-transfer) of run ${escaped.waiting}, by alice@example.com.`);
    // The command it suggests shows the id escaped, and a shell reads it back as the exact id.
    const word = approved.stdout.match(/gnl resume (\$'[^']*') --by/)?.[1];
    expect(word).toBe(`$'${escaped.waiting}'`);
    const echoed = spawnSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    expect(echoed.stdout).toBe(ids.waiting);
    const storage = new PGliteStorage({ dataDir });
    try {
      expect((await storage.runs.getRun(ids.waiting))?.pending[0]?.decision).toMatchObject({ outcome: 'approved', by: 'alice@example.com' });
    } finally {
      await storage.close();
    }
  });
});
