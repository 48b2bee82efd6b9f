/**
 * The explorer's scenarios: each a small scripted agent whose tools call the outside world
 * (outside-world.ts). The script answers the n-th model step of a run, served by the model server
 * (model-server.ts) through the real OpenAI provider; the tools send runDurable's idempotency key as
 * the Idempotency-Key header. `answered(tool)` is called inside every side effect's execute right after
 * the service answered: a boundary where the child may die.
 *
 * Families (chosen with `npm run test:chaos -- --families`):
 *   base     the seven agents of issue 7
 *   shapes   what providers send: parallel calls, calls repaired by repairToolCall, equal-args twins in
 *            one step, the same tool in several steps (ids that repeat across responses collide there)
 *   tools    async-generator tools, toModelOutput, side effects that throw before and after acting,
 *            a tool without execute (client-side, answered with provideToolResult)
 *   replay   what is not deterministic on replay: a policy that denies first and approves later, a
 *            zod default computed at parse time, a prepareStep that varies
 *   versions agents of several registered versions (versions.ts), migrated and forked by an operator
 *   workflows durable workflows (workflow-scenarios.ts): steps, a sleep, an event, child runs and a fan-out,
 *            run with runWorkflow instead of an agent (no script: no model is called)
 */
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import { type GnlToolOptions, gnlTool } from '@/lib/durable';
import type { OpResult } from './outside-world';
import { WORKFLOW_SCENARIOS, type WorkflowShape } from './workflow-scenarios';

export const SCENARIO_FAMILIES = ['base', 'shapes', 'tools', 'replay', 'versions', 'workflows'] as const;
export type ScenarioFamily = (typeof SCENARIO_FAMILIES)[number];

export interface ScriptCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Sent as the call's `arguments` instead of JSON of `input` (arguments the tool's schema refuses). */
  rawArguments?: string;
}
export type ScriptStep = { text: string } | { toolCalls: ScriptCall[] };

export interface Scenario {
  name: string;
  family: ScenarioFamily;
  /** What the script asks for, step by step (the last is the final text). */
  script: readonly ScriptStep[];
  /** Side-effecting tools and the service kind each performs. */
  sideEffects: Record<string, string>;
  /** Executions a completed run leaves in the outside world, per kind. */
  expected: Record<string, number>;
  /** runDurable options beyond tools and model (built in the child: they are functions). */
  options?: 'policy-flip' | 'prepare-step' | 'repair';
  /** A varying prepareStep makes replayed model calls differ by design: their replay-mismatch is journaled, not a violation. */
  modelMismatchExpected?: boolean;
  /** Needs journal.provideToolResult (a tool without execute). */
  clientTool?: boolean;
  /** Run as a registered agent of several versions (versions.ts): runAgent, runVersion, migrateRun, forkRun. */
  agent?: boolean;
  /** A workflow run (workflow-scenarios.ts) instead of an agent's: `script` is empty, `sideEffects` names steps. */
  workflow?: WorkflowShape;
}

/** How long the long-call scenario's side effect takes: over the explorer database's idle_session_timeout (IDLE_SESSION_TIMEOUT_MS). */
export const LONG_CALL_MS = 1_500;
export const IDLE_SESSION_TIMEOUT_MS = 700;

/** Service kinds the outside world deduplicates by key, and kinds that fail their first request. */
export const DEDUPE_KINDS = ['tickets'] as const;
export const FLAKY_KINDS = ['flaky'] as const;

const call = (toolCallId: string, toolName: string, input: unknown) => ({ toolCalls: [{ toolCallId, toolName, input }] });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'read-only',
    family: 'base',
    script: [call('c-read-1', 'lookup', { id: 'o_17' }), call('c-read-2', 'lookup', { id: 'c_42' }), { text: 'Looked both up.' }],
    sideEffects: {},
    expected: {},
  },
  {
    name: 'side-effect',
    family: 'base',
    script: [call('c-look', 'lookup', { id: 'o_17' }), call('c-refund', 'refund', { orderId: 'o_17', amount: 40 }), { text: 'Refunded.' }],
    sideEffects: { refund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'retry-safe',
    family: 'base',
    script: [call('c-ticket', 'ticket', { subject: 'broken' }), { text: 'Ticket opened.' }],
    sideEffects: { ticket: 'tickets' },
    expected: { tickets: 1 },
  },
  {
    name: 'check',
    family: 'base',
    script: [call('c-email', 'email', { to: 'ada@example.com' }), { text: 'Emailed.' }],
    sideEffects: { email: 'emails' },
    expected: { emails: 1 },
  },
  {
    name: 'approval',
    family: 'base',
    script: [call('c-approve', 'approvedRefund', { orderId: 'o_18', amount: 120 }), { text: 'Refunded after approval.' }],
    sideEffects: { approvedRefund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'args-replan',
    family: 'base',
    script: [call('c-note-1', 'note', { text: 'call back' }), call('c-note-2', 'note', { text: 'call back' }), { text: 'Noted once.' }],
    sideEffects: { note: 'notes' },
    expected: { notes: 1 },
  },
  {
    name: 'fails-then-succeeds',
    family: 'base',
    script: [call('c-flaky', 'flakyOp', { id: 'f_1' }), { text: 'Done on the second try.' }],
    sideEffects: { flakyOp: 'flaky' },
    expected: { flaky: 1 },
  },
  {
    name: 'parallel',
    family: 'shapes',
    script: [
      {
        toolCalls: [
          { toolCallId: 'c-par-look', toolName: 'lookup', input: { id: 'o_20' } },
          { toolCallId: 'c-par-refund', toolName: 'refund', input: { orderId: 'o_20', amount: 5 } },
          { toolCallId: 'c-par-email', toolName: 'email', input: { to: 'bob@example.com' } },
        ],
      },
      { text: 'Three at once.' },
    ],
    sideEffects: { refund: 'refunds', email: 'emails' },
    expected: { refunds: 1, emails: 1 },
  },
  {
    name: 'repaired',
    family: 'shapes',
    script: [
      {
        toolCalls: [
          { toolCallId: 'c-rep-look', toolName: 'lookup', input: { id: 17 }, rawArguments: '{"id":17}' },
          { toolCallId: 'c-rep-memo', toolName: 'memo', input: { text: 42 }, rawArguments: '{"text":42}' },
        ],
      },
      { text: 'Repaired and noted.' },
    ],
    sideEffects: { memo: 'memos' },
    expected: { memos: 1 },
    options: 'repair',
  },
  {
    name: 'twins',
    family: 'shapes',
    script: [
      {
        toolCalls: [
          { toolCallId: 'c-twin-1', toolName: 'note', input: { text: 'same' } },
          { toolCallId: 'c-twin-2', toolName: 'note', input: { text: 'same' } },
        ],
      },
      { text: 'Twins noted once.' },
    ],
    sideEffects: { note: 'notes' },
    expected: { notes: 1 },
  },
  {
    name: 'many-steps',
    family: 'shapes',
    script: [
      call('c-ms-1', 'refund', { orderId: 'o_31', amount: 1 }),
      call('c-ms-2', 'refund', { orderId: 'o_32', amount: 2 }),
      call('c-ms-3', 'approvedRefund', { orderId: 'o_33', amount: 3 }),
      call('c-ms-4', 'approvedRefund', { orderId: 'o_34', amount: 4 }),
      { text: 'Four refunds.' },
    ],
    sideEffects: { refund: 'refunds', approvedRefund: 'refunds' },
    expected: { refunds: 4 },
  },
  {
    name: 'generator',
    family: 'tools',
    script: [call('c-gen', 'batchRefund', { orderId: 'o_40', amount: 9 }), { text: 'Streamed refund.' }],
    sideEffects: { batchRefund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'model-output',
    family: 'tools',
    script: [call('c-receipt', 'receipt', { orderId: 'o_41' }), { text: 'Receipt sent.' }],
    sideEffects: { receipt: 'receipts' },
    expected: { receipts: 1 },
  },
  {
    name: 'throws',
    family: 'tools',
    script: [call('c-early', 'throwBefore', { id: 'e_1' }), call('c-late', 'throwAfter', { id: 'l_1' }), { text: 'Both acted once.' }],
    sideEffects: { throwBefore: 'early', throwAfter: 'late' },
    expected: { early: 1, late: 1 },
  },
  {
    name: 'client-tool',
    family: 'tools',
    script: [
      call('c-confirm', 'confirm', { question: 'Ship it?' }),
      call('c-ship', 'refund', { orderId: 'o_42', amount: 7 }),
      { text: 'Confirmed and refunded.' },
    ],
    sideEffects: { refund: 'refunds' },
    expected: { refunds: 1 },
    clientTool: true,
  },
  {
    // Outlasts the explorer database's idle_session_timeout (Postgres, database family): the hold's session must survive it.
    name: 'long-call',
    family: 'tools',
    script: [call('c-long', 'slowRefund', { orderId: 'o_43', amount: 8 }), { text: 'Refunded slowly.' }],
    sideEffects: { slowRefund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'policy-flip',
    family: 'replay',
    script: [call('c-guard', 'guardedRefund', { orderId: 'o_50', amount: 60 }), { text: 'Policy decided.' }],
    sideEffects: { guardedRefund: 'refunds' },
    expected: { refunds: 1 },
    options: 'policy-flip',
  },
  {
    name: 'zod-default',
    family: 'replay',
    script: [call('c-stamp', 'stamp', { orderId: 'o_51' }), { text: 'Stamped.' }],
    sideEffects: { stamp: 'stamps' },
    expected: { stamps: 1 },
  },
  {
    name: 'prepare-step',
    family: 'replay',
    script: [call('c-prep', 'refund', { orderId: 'o_52', amount: 3 }), { text: 'Prepared.' }],
    sideEffects: { refund: 'refunds' },
    expected: { refunds: 1 },
    options: 'prepare-step',
    modelMismatchExpected: true,
  },
  {
    name: 'agent-refund',
    family: 'versions',
    script: [call('c-av-look', 'lookup', { id: 'o_60' }), call('c-av-refund', 'refund', { orderId: 'o_60', amount: 12 }), { text: 'Looked up and refunded.' }],
    sideEffects: { refund: 'refunds' },
    expected: { refunds: 1 },
    agent: true,
  },
  {
    name: 'agent-steps',
    family: 'versions',
    script: [
      call('c-as-look', 'lookup', { id: 'o_61' }),
      call('c-as-1', 'refund', { orderId: 'o_61', amount: 1 }),
      call('c-as-2', 'approvedRefund', { orderId: 'o_62', amount: 2 }),
      call('c-as-3', 'refund', { orderId: 'o_63', amount: 3 }),
      { text: 'Three refunds.' },
    ],
    sideEffects: { refund: 'refunds', approvedRefund: 'refunds' },
    expected: { refunds: 3 },
    agent: true,
  },
  ...WORKFLOW_SCENARIOS,
];

export function scenarioNamed(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`unknown scenario "${name}": one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return found;
}

export function scenariosOf(families: ReadonlySet<ScenarioFamily>, options: { clientTools: boolean }): Scenario[] {
  return SCENARIOS.filter((s) => families.has(s.family) && (options.clientTools || !s.clientTool));
}

/** What runDurable gets beyond model and tools, per scenario; `invocation` counts the schedule's processes. */
export function scenarioOptions(
  scenario: Scenario,
  ctx: { invocation: number; policy: (toolCallId: string, decision: 'approved' | 'denied') => void },
): Record<string, unknown> {
  if (scenario.options === 'policy-flip') {
    // Denies in the first process, approves in every later one: a policy is code, and code changes.
    return {
      toolApproval: ({ toolCall }: { toolCall: { toolCallId: string; toolName: string } }) => {
        if (toolCall.toolName !== 'guardedRefund') return 'not-applicable';
        const decision = ctx.invocation === 0 ? 'denied' : 'approved';
        ctx.policy(toolCall.toolCallId, decision);
        return decision;
      },
    };
  }
  if (scenario.options === 'prepare-step') return { prepareStep: () => ({ system: `You are explorer process ${process.pid}.` }) };
  if (scenario.options === 'repair') {
    // A repair is usually another model call: it need not answer the same twice.
    return {
      repairToolCall: async ({ toolCall }: { toolCall: { toolName: string; input: string } }) => {
        const parsed = JSON.parse(toolCall.input) as Record<string, unknown>;
        const fixed = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
        if (toolCall.toolName === 'memo') fixed.text = `${fixed.text} (repaired by process ${process.pid})`;
        return { ...toolCall, input: JSON.stringify(fixed) };
      },
    };
  }
  return {};
}

/** The tools of every scenario (a run's start input names its tools, so each scenario gets only its own). */
export function scenarioTools(
  scenario: Scenario,
  serviceUrl: string,
  answered: (toolName: string) => void | Promise<void>,
  /** Called right before a side effect's request leaves: when the work began. */
  performing: (toolName: string) => void = () => {},
): Record<string, Tool> {
  const perform = async (toolName: string, kind: string, input: unknown, key: string | undefined): Promise<OpResult> => {
    performing(toolName);
    const res = await fetch(`${serviceUrl}/op/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key ?? '' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as unknown;
    if (res.status !== 200 && res.status !== 201) throw new Error(`POST /op/${kind} answered HTTP ${res.status}: ${JSON.stringify(body)}`);
    await answered(toolName);
    return body as OpResult;
  };
  /** The n-th time this key reached the tool (the outside world counts it): throwing tools throw only the first time. */
  const attemptOf = async (kind: string, key: string | undefined): Promise<number> => {
    const res = await fetch(`${serviceUrl}/attempt/${kind}/${encodeURIComponent(key ?? '')}`, { method: 'POST' });
    return ((await res.json()) as { attempt: number }).attempt;
  };
  const checkByKey =
    (kind: string) =>
    async ({ idempotencyKey }: { idempotencyKey: string }) => {
      const res = await fetch(`${serviceUrl}/op/${kind}/by-key/${encodeURIComponent(idempotencyKey)}`);
      if (res.status === 404) return { done: false as const };
      if (!res.ok) return { done: 'unknown' as const, reason: `HTTP ${res.status}` };
      return { done: true as const, output: (await res.json()) as OpResult };
    };
  const anyInput = z.record(z.string(), z.unknown());
  const sideEffect = (toolName: string, kind: string, options: GnlToolOptions<Record<string, unknown>, OpResult>) =>
    gnlTool(tool({ inputSchema: anyInput, execute: (input, { idempotencyKey }) => perform(toolName, kind, input, idempotencyKey) }), options);

  const all: Record<string, () => Tool> = {
    lookup: () =>
      tool({
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          const res = await fetch(`${serviceUrl}/read/${encodeURIComponent(id)}`);
          if (!res.ok) throw new Error(`GET /read answered HTTP ${res.status}`);
          return (await res.json()) as unknown;
        },
      }),
    refund: () => sideEffect('refund', 'refunds', { sideEffect: true }),
    ticket: () => sideEffect('ticket', 'tickets', { sideEffect: true, retrySafe: true }),
    email: () => sideEffect('email', 'emails', { sideEffect: true, check: checkByKey('emails') }),
    approvedRefund: () => sideEffect('approvedRefund', 'refunds', { sideEffect: true, needsApproval: true }),
    note: () => sideEffect('note', 'notes', { sideEffect: true, idempotency: 'args' }),
    flakyOp: () => sideEffect('flakyOp', 'flaky', { sideEffect: true, check: checkByKey('flaky') }),
    guardedRefund: () => sideEffect('guardedRefund', 'refunds', { sideEffect: true }),
    memo: () =>
      gnlTool(tool({ inputSchema: z.object({ text: z.string() }), execute: (input, { idempotencyKey }) => perform('memo', 'memos', input, idempotencyKey) }), {
        sideEffect: true,
        idempotency: 'args',
      }),
    batchRefund: () =>
      gnlTool(
        tool({
          inputSchema: anyInput,
          // An async-generator tool: the SDK takes the last value yielded as the output.
          execute: async function* (input: Record<string, unknown>, { idempotencyKey }: { idempotencyKey?: string }) {
            yield { status: 'refunding' } as unknown as OpResult;
            yield await perform('batchRefund', 'refunds', input, idempotencyKey);
          },
        } as never) as Tool,
        { sideEffect: true },
      ),
    receipt: () =>
      gnlTool(
        tool({
          inputSchema: anyInput,
          execute: (input, { idempotencyKey }) => perform('receipt', 'receipts', input, idempotencyKey),
          toModelOutput: ({ output }) => ({ type: 'text', value: `receipt ${output.opId}` }),
        }),
        { sideEffect: true },
      ),
    throwBefore: () =>
      gnlTool(
        tool({
          inputSchema: anyInput,
          execute: async (input, { idempotencyKey }) => {
            if ((await attemptOf('early', idempotencyKey)) === 1) throw new Error('throwBefore: failed before acting');
            return perform('throwBefore', 'early', input, idempotencyKey);
          },
        }),
        { sideEffect: true, check: checkByKey('early') },
      ),
    throwAfter: () =>
      gnlTool(
        tool({
          inputSchema: anyInput,
          execute: async (input, { idempotencyKey }) => {
            const done = await perform('throwAfter', 'late', input, idempotencyKey);
            if ((await attemptOf('late', idempotencyKey)) === 1) throw new Error('throwAfter: failed after acting');
            return done;
          },
        }),
        { sideEffect: true },
      ),
    stamp: () =>
      gnlTool(
        tool({
          inputSchema: z.object({ orderId: z.string(), at: z.string().default(() => new Date().toISOString()) }),
          execute: (input, { idempotencyKey }) => perform('stamp', 'stamps', input, idempotencyKey),
        }),
        { sideEffect: true },
      ),
    slowRefund: () =>
      gnlTool(
        tool({
          inputSchema: anyInput,
          execute: async (input, { idempotencyKey }) => {
            await new Promise((resolve) => setTimeout(resolve, LONG_CALL_MS));
            return perform('slowRefund', 'refunds', input, idempotencyKey);
          },
        }),
        { sideEffect: true },
      ),
    confirm: () => tool({ inputSchema: z.object({ question: z.string() }) }) as Tool,
  };
  const names = new Set(scenario.script.flatMap((step) => ('toolCalls' in step ? step.toolCalls.map((c) => c.toolName) : [])));
  return Object.fromEntries([...names].map((name) => [name, (all[name] as () => Tool)()]));
}
