/**
 * The explorer's workflow scenarios (the `workflows` family): small workflows (lib/durable/workflow) run by
 * the child with runWorkflow on the boundary journal (workflow-child.ts), whose steps call the outside
 * world (outside-world.ts) with the step's idempotency key as the Idempotency-Key header. `answered(step)`
 * is called inside every side-effect step right after the service answered: a boundary where the child
 * may die. `performing(step)` right before the request leaves.
 *
 *   wf-steps        a read-only step, a retrySafe step (the world deduplicates tickets by key), a step with
 *                   a check by key, and a side effect with neither (an unknown outcome blocks the run for a
 *                   person: the explorer resolves it from the world's store, as for an agent's tool)
 *   wf-sleep-event  a durable sleep (real time, 200 ms), a wait for the `reply` event (sent by the schedule,
 *                   twice under one event id; or racing the wait at a boundary), a second wait for it that
 *                   must time out (200 ms: the one event was taken), then a side effect with a check
 *   wf-children     a child workflow run, a fan-out of three (concurrency 2), each child a side effect with a
 *                   check, then a retrySafe step of the parent
 */
import { z } from 'zod';
import { type CheckResult, defineWorkflow, type Workflow } from '@/lib/durable';
import type { OpResult } from './outside-world';
import type { Scenario } from './scenarios';

/** What the explorer needs to know of a workflow scenario beyond its side effects. */
export interface WorkflowShape {
  /** The workflow the run is of, and its input. */
  name: string;
  input: Record<string, unknown>;
  /** Its child runs' ids after the parent's (`<runId>/<suffix>`): read and judged with it. */
  children?: readonly string[];
  /** A fan-out: its children's ids begin `<runId>/<prefix>`, at most `concurrency` of them open at once. */
  fanOut?: { prefix: string; concurrency: number };
  /** The event it waits for: sent by the schedule under one event id (twice, as a retried send). */
  event?: { name: string; eventId: string; payload: { text: string } };
  /** Steps that may block the run for a person (side effects without check or retrySafe). */
  mayBlock: readonly string[];
}

export const SLEEP_MS = 200;
export const SECOND_WAIT_MS = 200;
export const FAN_OUT_CONCURRENCY = 2;
export const REPLY_EVENT = { name: 'reply', eventId: 'reply-1', payload: { text: 'yes, go ahead' } } as const;

export const WORKFLOW_SCENARIOS: readonly Scenario[] = [
  {
    name: 'wf-steps',
    family: 'workflows',
    script: [],
    sideEffects: { ticket: 'tickets', email: 'emails', refund: 'refunds' },
    expected: { tickets: 1, emails: 1, refunds: 1 },
    workflow: { name: 'wf-steps', input: { orderId: 'o_70' }, mayBlock: ['refund'] },
  },
  {
    name: 'wf-sleep-event',
    family: 'workflows',
    script: [],
    sideEffects: { confirm: 'emails' },
    expected: { emails: 1 },
    workflow: { name: 'wf-sleep-event', input: { orderId: 'o_71' }, event: REPLY_EVENT, mayBlock: [] },
  },
  {
    name: 'wf-children',
    family: 'workflows',
    script: [],
    sideEffects: { notice: 'notices', close: 'tickets' },
    expected: { notices: 4, tickets: 1 },
    workflow: {
      name: 'wf-children',
      input: { orderId: 'o_72' },
      children: ['audit', 'notify/0', 'notify/1', 'notify/2'],
      fanOut: { prefix: 'notify/', concurrency: FAN_OUT_CONCURRENCY },
      mayBlock: [],
    },
  },
];

/** The scenarios' workflows, by name (the children's too), their steps calling the outside world at `serviceUrl`. */
export function explorerWorkflows(
  serviceUrl: string,
  answered: (step: string) => void | Promise<void>,
  performing: (step: string) => void = () => {},
): Record<string, Workflow> {
  const perform = async (step: string, kind: string, input: unknown, key: string): Promise<OpResult> => {
    performing(step);
    const res = await fetch(`${serviceUrl}/op/${kind}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as unknown;
    if (res.status !== 200 && res.status !== 201) throw new Error(`POST /op/${kind} answered HTTP ${res.status}: ${JSON.stringify(body)}`);
    await answered(step);
    return body as OpResult;
  };
  const checkByKey =
    (kind: string) =>
    async ({ idempotencyKey }: { idempotencyKey: string }): Promise<CheckResult<OpResult>> => {
      const res = await fetch(`${serviceUrl}/op/${kind}/by-key/${encodeURIComponent(idempotencyKey)}`);
      if (res.status === 404) return { done: false };
      if (!res.ok) return { done: 'unknown', reason: `HTTP ${res.status}` };
      return { done: true, output: (await res.json()) as OpResult };
    };
  const act =
    (step: string, kind: string) =>
    ({ input, idempotencyKey }: { input: unknown; idempotencyKey: string }) =>
      perform(step, kind, input, idempotencyKey);

  const steps = defineWorkflow({
    name: 'wf-steps',
    input: z.object({ orderId: z.string() }),
    run: async (wf, { orderId }) => {
      const order = await wf.step('lookup', { input: { id: orderId } }, async ({ input }) => {
        const res = await fetch(`${serviceUrl}/read/${encodeURIComponent(input.id)}`);
        if (!res.ok) throw new Error(`GET /read answered HTTP ${res.status}`);
        return (await res.json()) as { id: string; value: string };
      });
      const ticket = await wf.step('ticket', { input: { subject: `refund ${order.id}` }, sideEffect: true, retrySafe: true }, act('ticket', 'tickets'));
      const email = await wf.step('email', { input: { to: 'ada@example.com' }, sideEffect: true, check: checkByKey('emails') }, act('email', 'emails'));
      const refund = await wf.step('refund', { input: { orderId, amount: 30 }, sideEffect: true }, act('refund', 'refunds'));
      return { order: order.id, ticket, email, refund };
    },
  });

  const sleepEvent = defineWorkflow({
    name: 'wf-sleep-event',
    input: z.object({ orderId: z.string() }),
    events: { [REPLY_EVENT.name]: z.object({ text: z.string() }) },
    run: async (wf, { orderId }) => {
      await wf.sleep('cool-off', SLEEP_MS);
      const wokeAt = (await wf.now()).getTime();
      const reply = await wf.waitForEvent<{ text: string }>(REPLY_EVENT.name);
      // The one event was taken by the first wait: this one must time out.
      const again = await wf.waitForEvent<{ text: string }>(REPLY_EVENT.name, { timeoutMs: SECOND_WAIT_MS });
      if (reply.timedOut) throw new Error('the first wait has no deadline and timed out');
      const confirm = await wf.step(
        'confirm',
        { input: { orderId, text: reply.payload.text }, sideEffect: true, check: checkByKey('emails') },
        act('confirm', 'emails'),
      );
      return { wokeAt, reply: { eventId: reply.eventId, text: reply.payload.text }, again: again.timedOut ? 'timeout' : again.eventId, confirm };
    },
  });

  const leaf = defineWorkflow({
    name: 'wf-leaf',
    input: z.object({ orderId: z.string(), n: z.number().int() }),
    run: async (wf, { orderId, n }) => wf.step('notice', { input: { orderId, n }, sideEffect: true, check: checkByKey('notices') }, act('notice', 'notices')),
  });

  const children = defineWorkflow({
    name: 'wf-children',
    input: z.object({ orderId: z.string() }),
    run: async (wf, { orderId }) => {
      const audit = await wf.child<OpResult>('audit', { workflow: 'wf-leaf', input: { orderId, n: 0 } });
      const notices = await wf.all(
        'notify',
        [1, 2, 3].map((n) => ({ workflow: 'wf-leaf', input: { orderId, n } })),
        { concurrency: FAN_OUT_CONCURRENCY },
      );
      const close = await wf.step('close', { input: { orderId }, sideEffect: true, retrySafe: true }, act('close', 'tickets'));
      return { audit, notices: notices.map((o) => (o.status === 'completed' ? o.output : o.status)), close };
    },
  });

  return Object.fromEntries([steps, sleepEvent, leaf, children].map((w) => [w.name, w as Workflow]));
}
