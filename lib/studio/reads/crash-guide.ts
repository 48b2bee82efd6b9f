/**
 * The guided crash (the Demo page's "Try a crash inside a refund", issue 32): where a run started by it
 * stands, step by step, read from the projection's call history and the run's status. Pure and
 * browser-safe: the run page draws it from the events it already follows live.
 */
import type { CallHistory, CallRecord } from '@/lib/durable/projection';

export type GuideStepState = 'done' | 'now' | 'next';

export interface GuideStep {
  id: 'approve' | 'crash' | 'blocked' | 'decide' | 'completed';
  title: string;
  state: GuideStepState;
}

export interface CrashGuide {
  steps: GuideStep[];
  /** Said instead of the next step when the run took another way (the refund rejected, the run failed). */
  off?: string;
}

const TITLES: Record<GuideStep['id'], string> = {
  approve: 'Approve the refund (below, under the run’s summary, or in the inbox)',
  crash: 'The Studio’s server is killed (SIGKILL) right after the refund was sent, before its result is recorded, and starts again',
  blocked: 'GNL does not guess: the refund may or may not have gone out, so the run is blocked for a person',
  decide: 'Say what happened: the card shows what the outside service recorded under the call’s idempotency key; mark it done',
  completed: 'The run completes with one refund: the outside service’s own counter says 1',
};

export function crashGuide(args: { index: Pick<CallHistory, 'calls' | 'resumes'>; status: string; toolName?: string }): CrashGuide {
  const toolName = args.toolName ?? 'issueRefund';
  const refund = [...args.index.calls.values()].find((call: CallRecord) => call.toolName === toolName);
  const start = refund?.starts[0];
  const done: Record<GuideStep['id'], boolean> = {
    approve: refund?.response?.approved === true,
    crash: start !== undefined && args.index.resumes.some((resume) => resume > start.seq),
    blocked: args.status === 'blocked' || refund?.resolution !== undefined,
    decide: refund?.resolution !== undefined,
    completed: args.status === 'completed',
  };
  // A later step seen means the earlier ones happened (a page opened mid-way still reads them so).
  const order: GuideStep['id'][] = ['approve', 'crash', 'blocked', 'decide', 'completed'];
  const last = order.reduce((found, id, i) => (done[id] ? i : found), -1);
  const steps = order.map((id, i): GuideStep => ({ id, title: TITLES[id], state: i <= last ? 'done' : i === last + 1 ? 'now' : 'next' }));
  const off =
    refund?.response?.approved === false
      ? 'The refund was rejected, so nothing crashed inside it. Start the guided crash again from the Demo page.'
      : args.status === 'failed' || args.status === 'canceled'
        ? `The run is ${args.status}: the guide stops here.`
        : undefined;
  return { steps, ...(off ? { off } : {}) };
}
