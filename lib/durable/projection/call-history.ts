/**
 * Part of the run projection: each tool call's history as the timeline links it: its request for
 * approval and the answer, its starts, end or errors, checks and an operator's resolution, and the model
 * step that asked for it; and for each resume, how many model steps it replayed from the journal. Built
 * from the events at hand (a contiguous range up to the newest, so everything after a shown step is
 * known). Keeps the events themselves, so it is generic over their form (recorded, or wire with ISO dates).
 */
import type { JournalEvent } from '../journal/events';

type SeqEvent = JournalEvent & { seq: number };
type Of<E extends SeqEvent, T extends JournalEvent['type']> = Extract<E, { type: T }>;

export interface CallRecord<E extends SeqEvent = SeqEvent> {
  toolCallId: string;
  toolName?: string;
  /** The seq of the model step that asked for the call. */
  stepSeq?: number;
  request?: Of<E, 'tool-approval-request'>;
  response?: Of<E, 'tool-approval-response'>;
  starts: Of<E, 'tool-call-start'>[];
  end?: Of<E, 'tool-call-end'>;
  errors: Of<E, 'tool-call-error'>[];
  checks: Of<E, 'side-effect-check'>[];
  resolution?: Of<E, 'side-effect-resolution'>;
}

export interface CallHistory<E extends SeqEvent = SeqEvent> {
  calls: Map<string, CallRecord<E>>;
  /** For a run-resume's seq: the model steps replayed from the journal (the step number of the first model call after it). */
  replayedSteps: Map<number, number>;
  /** The seqs of run-resume events, in order: each later invocation replays what was recorded before it. */
  resumes: number[];
}

/** How many later invocations replayed (did not execute again) what was recorded at `seq`. */
export function replaysAfter(index: Pick<CallHistory<never>, 'resumes'>, seq: number): number {
  return index.resumes.filter((resume) => resume > seq).length;
}

export function buildCallHistory<E extends SeqEvent>(events: readonly E[]): CallHistory<E> {
  const calls = new Map<string, CallRecord<E>>();
  const replayedSteps = new Map<number, number>();
  const resumes: number[] = [];
  const call = (toolCallId: string, toolName?: string): CallRecord<E> => {
    let record = calls.get(toolCallId);
    if (!record) {
      record = { toolCallId, starts: [], errors: [], checks: [] };
      calls.set(toolCallId, record);
    }
    if (toolName && !record.toolName) record.toolName = toolName;
    return record;
  };
  let openResume: number | undefined;
  for (const event of events) {
    // Narrowed on the union; stored as the caller's own form of the event (the same object).
    const e: SeqEvent = event;
    const kept = <T extends JournalEvent['type']>() => event as Of<E, T>;
    switch (e.type) {
      case 'model-step': {
        if (openResume !== undefined) replayedSteps.set(openResume, e.step);
        openResume = undefined;
        const content = (e.result as { content?: unknown } | undefined)?.content;
        for (const part of Array.isArray(content) ? content : []) {
          const p = part as { type?: unknown; toolCallId?: unknown; toolName?: unknown };
          if (p?.type === 'tool-call' && typeof p.toolCallId === 'string') call(p.toolCallId, String(p.toolName ?? '')).stepSeq ??= e.seq;
        }
        break;
      }
      case 'run-resume':
        openResume = e.seq;
        resumes.push(e.seq);
        break;
      case 'tool-approval-request':
        call(e.toolCallId, e.toolName).request = kept<'tool-approval-request'>();
        break;
      case 'tool-approval-response':
        call(e.toolCallId).response = kept<'tool-approval-response'>();
        break;
      case 'tool-call-start':
        call(e.toolCallId, e.toolName).starts.push(kept<'tool-call-start'>());
        break;
      case 'tool-call-end':
        call(e.toolCallId, e.toolName).end = kept<'tool-call-end'>();
        break;
      case 'tool-call-error':
        call(e.toolCallId, e.toolName).errors.push(kept<'tool-call-error'>());
        break;
      case 'side-effect-check':
        call(e.toolCallId).checks.push(kept<'side-effect-check'>());
        break;
      case 'side-effect-resolution':
        call(e.toolCallId).resolution = kept<'side-effect-resolution'>();
        break;
    }
  }
  return { calls, replayedSteps, resumes };
}
