/**
 * Hostile strings that change what a person reads without showing themselves (lib/text/visible-text.ts),
 * each with what the Studio must show for it. One table for the module's unit test, the CLI's test
 * (a real gnl process) and the Studio's e2e (real Chromium), all fed by `seedSpoofed` below.
 *
 * Every string here can be journaled: no NUL and no lone surrogate (Postgres text and jsonb refuse
 * both; the unit test covers them apart).
 */
import { stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { gnlTool, type Journal, runDurable } from '@/lib/durable';
import { MockLanguageModelV4 } from 'ai/test';
import type { PGliteStorage } from '@/lib/durable/storage';
import { recordRunBeforeTheRule } from './run-before-the-rule';
import { scriptedModel, stepResult } from './scripted-model';

export interface SpoofedText {
  /** The field it is journaled under in the seeded tool arguments. */
  key: string;
  text: string;
  /** The text as the Studio shows it: each hidden character as ⟨U+XXXX⟩. */
  marked: string;
  /** The hidden code points, in order of occurrence. */
  codes: string[];
}

export const SPOOFED: readonly SpoofedText[] = [
  {
    key: 'iban',
    text: 'DE89 3704 0044 \u202E1234 5678 90\u202C',
    marked: 'DE89 3704 0044 ⟨U+202E⟩1234 5678 90⟨U+202C⟩',
    codes: ['U+202E', 'U+202C'],
  },
  { key: 'amount', text: '\u202E00001\u202C EUR', marked: '⟨U+202E⟩00001⟨U+202C⟩ EUR', codes: ['U+202E', 'U+202C'] },
  { key: 'attachment', text: 'invoice\u202Egnp.exe', marked: 'invoice⟨U+202E⟩gnp.exe', codes: ['U+202E'] },
  {
    key: 'embeddings',
    text: 'a\u202Ab\u202Bc\u202Dd\u2066e\u2067f\u2068g\u2069h',
    marked: 'a⟨U+202A⟩b⟨U+202B⟩c⟨U+202D⟩d⟨U+2066⟩e⟨U+2067⟩f⟨U+2068⟩g⟨U+2069⟩h',
    codes: ['U+202A', 'U+202B', 'U+202D', 'U+2066', 'U+2067', 'U+2068', 'U+2069'],
  },
  { key: 'marks', text: 'pay\u200E to\u200F x\u061C', marked: 'pay⟨U+200E⟩ to⟨U+200F⟩ x⟨U+061C⟩', codes: ['U+200E', 'U+200F', 'U+061C'] },
  {
    key: 'recipient',
    text: 'pay\u200Bpal\u200C.com\u200D',
    marked: 'pay⟨U+200B⟩pal⟨U+200C⟩.com⟨U+200D⟩',
    codes: ['U+200B', 'U+200C', 'U+200D'],
  },
  {
    key: 'joiners',
    text: '1\u20602\u20613\u20624\u20635\u2064',
    marked: '1⟨U+2060⟩2⟨U+2061⟩3⟨U+2062⟩4⟨U+2063⟩5⟨U+2064⟩',
    codes: ['U+2060', 'U+2061', 'U+2062', 'U+2063', 'U+2064'],
  },
  {
    key: 'login',
    text: '\uFEFFadmin\u00AD\u180E\u034F',
    marked: '⟨U+FEFF⟩admin⟨U+00AD⟩⟨U+180E⟩⟨U+034F⟩',
    codes: ['U+FEFF', 'U+00AD', 'U+180E', 'U+034F'],
  },
  {
    key: 'fillers',
    text: 'ok\u115F\u1160\u3164\uFFA0',
    marked: 'ok⟨U+115F⟩⟨U+1160⟩⟨U+3164⟩⟨U+FFA0⟩',
    codes: ['U+115F', 'U+1160', 'U+3164', 'U+FFA0'],
  },
  {
    key: 'selectors',
    text: 'x\uFE0F y\uFE00 z\u{E0100}',
    marked: 'x⟨U+FE0F⟩ y⟨U+FE00⟩ z⟨U+E0100⟩',
    codes: ['U+FE0F', 'U+FE00', 'U+E0100'],
  },
  {
    key: 'tags',
    text: 'flag\u{E0001}\u{E0041}\u{E007F}',
    marked: 'flag⟨U+E0001⟩⟨U+E0041⟩⟨U+E007F⟩',
    codes: ['U+E0001', 'U+E0041', 'U+E007F'],
  },
  {
    key: 'otherFormat',
    text: 'note\u2028line\u2029end\uFFF9a\uFFFBb\u{1D173}',
    marked: 'note⟨U+2028⟩line⟨U+2029⟩end⟨U+FFF9⟩a⟨U+FFFB⟩b⟨U+1D173⟩',
    codes: ['U+2028', 'U+2029', 'U+FFF9', 'U+FFFB', 'U+1D173'],
  },
  {
    key: 'controls',
    text: 'bell\u0007 esc\u001b[2J cr\r del\u007f csi\u009b31m',
    marked: 'bell⟨U+0007⟩ esc⟨U+001B⟩[2J cr⟨U+000D⟩ del⟨U+007F⟩ csi⟨U+009B⟩31m',
    codes: ['U+0007', 'U+001B', 'U+000D', 'U+007F', 'U+009B'],
  },
];

/** Each table entry without C0 and C1 controls: run ids and operator names refuse them (they must be printable). */
export const SPOOFED_PRINTABLE = SPOOFED.filter((entry) => !/\p{Cc}/u.test(entry.text));

/** The table's strings, one a line: the seeded goal and model text. */
export const SPOOFED_LINES = SPOOFED.map((entry) => entry.text).join('\n');
export const SPOOFED_LINES_MARKED = SPOOFED.map((entry) => entry.marked).join('\n');

/** The tool arguments the seeded runs carry: one field per table entry. */
export const spoofedArguments = (): Record<string, string> => Object.fromEntries(SPOOFED.map((entry) => [entry.key, entry.text]));

/** Every hidden code point the table holds, each once (what a page must never show raw). */
export const SPOOFED_CODE_POINTS: readonly number[] = [...new Set(SPOOFED.flatMap((entry) => entry.codes.map((code) => Number.parseInt(code.slice(2), 16))))];

/** The CLI's form of a marked text: ⟨U+202E⟩ as \u202e (\u{e0041} past the BMP), as lib/cli/format.ts prints it. */
export function asTerminalEscapes(marked: string): string {
  return marked.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, hex: string) => (hex.length > 4 ? `\\u{${hex.toLowerCase()}}` : `\\u${hex.toLowerCase()}`));
}

export const SPOOFED_RUNS = {
  /** Waits for approval of a transfer whose arguments hold the whole table; its goal and model text too. */
  waiting: { runId: 'spoofing:waiting \u202Egnp.exe\u200B', marked: 'spoofing:waiting ⟨U+202E⟩gnp.exe⟨U+200B⟩' },
  /** Completed: its transfer was rejected with a hostile reason by a hostile name, its answer the table. */
  completed: { runId: 'spoofing:done \u2066\u202Egnp\u2069\uFEFF.exe', marked: 'spoofing:done ⟨U+2066⟩⟨U+202E⟩gnp⟨U+2069⟩⟨U+FEFF⟩.exe' },
  /** Who rejected it, and why: an operator's words are untrusted text too. */
  rejectedBy: 'ops\u202Enimda',
  rejectedByMarked: 'ops⟨U+202E⟩nimda',
  reason: 'Wrong IBAN \u202E09 8765\u202C\u200B',
  reasonMarked: 'Wrong IBAN ⟨U+202E⟩09 8765⟨U+202C⟩⟨U+200B⟩',
} as const;

const transfer = () =>
  gnlTool(
    tool({
      description: 'Send money',
      inputSchema: z.record(z.string(), z.string()),
      execute: async (input) => ({ sent: true, echo: input }),
    }),
    { sideEffect: true, needsApproval: true },
  );

/**
 * Journals two runs with the real runtime (their hostile run ids recorded as an older GNL did: run-before-the-rule.ts): one waiting for approval of the table's arguments (goal,
 * run id and model text hostile too), one whose call was rejected (hostile name and reason) and which
 * then answered with the table.
 */
export async function seedSpoofed(
  storage: PGliteStorage,
  ids: { waiting: string; completed: string } = { waiting: SPOOFED_RUNS.waiting.runId, completed: SPOOFED_RUNS.completed.runId },
): Promise<void> {
  const journal: Journal = storage.runs;
  // Hidden characters in a runId are refused today (normalizeRunId); these two runs are as an older GNL recorded them.
  const start = { modelId: 'scripted-v1', provider: 'scripted', toolNames: ['transfer'] };
  await recordRunBeforeTheRule(storage, ids.waiting, { ...start, prompt: `Pay these:\n${SPOOFED_LINES}` });
  await recordRunBeforeTheRule(storage, ids.completed, { ...start, prompt: SPOOFED_LINES });
  const call = { toolCallId: 'call-transfer', toolName: 'transfer', input: spoofedArguments() };
  // Text and a tool call in one step (the scripted model gives one or the other), so the inbox shows model text too.
  const saysAndCalls = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doGenerate: async () => {
      const result = stepResult({ toolCalls: [call] });
      return { ...result, content: [{ type: 'text', text: SPOOFED_LINES }, ...result.content] };
    },
  });
  const waiting = await runDurable({
    runId: ids.waiting,
    journal,
    model: saysAndCalls,
    tools: { transfer: transfer() },
    stopWhen: stepCountIs(3),
    prompt: `Pay these:\n${SPOOFED_LINES}`,
  });
  if (waiting.status !== 'waiting-approval') throw new Error(`seedSpoofed: expected waiting-approval, got ${waiting.status}`);

  const script = (step: number) => (step === 0 ? { toolCalls: [call] } : { text: SPOOFED_LINES });
  const first = await runDurable({
    runId: ids.completed,
    journal,
    model: scriptedModel(script).model,
    tools: { transfer: transfer() },
    stopWhen: stepCountIs(3),
    prompt: SPOOFED_LINES,
  });
  if (first.status !== 'waiting-approval') throw new Error(`seedSpoofed: expected waiting-approval, got ${first.status}`);
  await journal.reject({ runId: ids.completed, toolCallId: call.toolCallId, by: SPOOFED_RUNS.rejectedBy, reason: SPOOFED_RUNS.reason });
  const done = await runDurable({
    runId: ids.completed,
    journal,
    model: scriptedModel(script).model,
    tools: { transfer: transfer() },
    stopWhen: stepCountIs(3),
    prompt: SPOOFED_LINES,
  });
  if (done.status !== 'completed') throw new Error(`seedSpoofed: expected completed, got ${done.status}`);
}
