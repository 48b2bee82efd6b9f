/**
 * The explorer's scenarios: each a small scripted agent whose tools call the outside world
 * (outside-world.ts). The script answers the n-th model step of a run; the tools send
 * runDurable's idempotency key as the Idempotency-Key header. `answered(tool)` is called inside every
 * side effect's execute right after the service answered: a boundary where the child may die.
 */
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import { type GnlToolOptions, gnlTool } from '@/lib/durable';
import type { ScriptedStep } from '@/tests/support/scripted-model';
import type { OpResult } from './outside-world';

export interface Scenario {
  name: string;
  /** What the script asks for, step by step (the last is the final text). */
  script: readonly ScriptedStep[];
  /** Side-effecting tools and the service kind each performs. */
  sideEffects: Record<string, string>;
  /** Executions a completed run leaves in the outside world, per kind. */
  expected: Record<string, number>;
}

/** Service kinds the outside world deduplicates by key, and kinds that fail their first request. */
export const DEDUPE_KINDS = ['tickets'] as const;
export const FLAKY_KINDS = ['flaky'] as const;

const call = (toolCallId: string, toolName: string, input: unknown) => ({ toolCalls: [{ toolCallId, toolName, input }] });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'read-only',
    script: [call('c-read-1', 'lookup', { id: 'o_17' }), call('c-read-2', 'lookup', { id: 'c_42' }), { text: 'Looked both up.' }],
    sideEffects: {},
    expected: {},
  },
  {
    name: 'side-effect',
    script: [call('c-look', 'lookup', { id: 'o_17' }), call('c-refund', 'refund', { orderId: 'o_17', amount: 40 }), { text: 'Refunded.' }],
    sideEffects: { refund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'retry-safe',
    script: [call('c-ticket', 'ticket', { subject: 'broken' }), { text: 'Ticket opened.' }],
    sideEffects: { ticket: 'tickets' },
    expected: { tickets: 1 },
  },
  {
    name: 'check',
    script: [call('c-email', 'email', { to: 'ada@example.com' }), { text: 'Emailed.' }],
    sideEffects: { email: 'emails' },
    expected: { emails: 1 },
  },
  {
    name: 'approval',
    script: [call('c-approve', 'approvedRefund', { orderId: 'o_18', amount: 120 }), { text: 'Refunded after approval.' }],
    sideEffects: { approvedRefund: 'refunds' },
    expected: { refunds: 1 },
  },
  {
    name: 'args-replan',
    script: [call('c-note-1', 'note', { text: 'call back' }), call('c-note-2', 'note', { text: 'call back' }), { text: 'Noted once.' }],
    sideEffects: { note: 'notes' },
    expected: { notes: 1 },
  },
  {
    name: 'fails-then-succeeds',
    script: [call('c-flaky', 'flakyOp', { id: 'f_1' }), { text: 'Done on the second try.' }],
    sideEffects: { flakyOp: 'flaky' },
    expected: { flaky: 1 },
  },
];

export function scenarioNamed(name: string): Scenario {
  const found = SCENARIOS.find((s) => s.name === name);
  if (!found) throw new Error(`unknown scenario "${name}": one of ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return found;
}

export function scriptStep(scenario: Scenario, step: number): ScriptedStep {
  return scenario.script[Math.min(step, scenario.script.length - 1)] as ScriptedStep;
}

/** The tools of every scenario (a run's start input names its tools, so each scenario gets only its own). */
export function scenarioTools(scenario: Scenario, serviceUrl: string, answered: (toolName: string) => void): Record<string, Tool> {
  const perform = async (toolName: string, kind: string, input: unknown, key: string | undefined): Promise<OpResult> => {
    const res = await fetch(`${serviceUrl}/op/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key ?? '' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as unknown;
    if (res.status !== 200 && res.status !== 201) throw new Error(`POST /op/${kind} answered HTTP ${res.status}: ${JSON.stringify(body)}`);
    answered(toolName);
    return body as OpResult;
  };
  const checkByKey =
    (kind: string) =>
    async ({ idempotencyKey }: { idempotencyKey: string }) => {
      const res = await fetch(`${serviceUrl}/op/${kind}/by-key/${encodeURIComponent(idempotencyKey)}`);
      if (res.status === 404) return { done: false as const };
      if (!res.ok) return { done: 'unknown' as const, reason: `HTTP ${res.status}` };
      return { done: true as const, output: (await res.json()) as OpResult };
    };
  const sideEffect = (toolName: string, kind: string, options: GnlToolOptions<Record<string, unknown>, OpResult>) =>
    gnlTool(
      tool({
        inputSchema: z.record(z.string(), z.unknown()),
        execute: (input, { idempotencyKey }) => perform(toolName, kind, input, idempotencyKey),
      }),
      options,
    );

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
  };
  const names = new Set(scenario.script.flatMap((step) => ('toolCalls' in step ? step.toolCalls.map((c) => c.toolName) : [])));
  return Object.fromEntries([...names].map((name) => [name, (all[name] as () => Tool)()]));
}
