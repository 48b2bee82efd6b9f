/**
 * What the timeline links across events: each tool call's request for approval and its answer, its
 * starts, end or errors, checks and an operator's resolution, and the model step that asked for it;
 * and for each resume, how many model steps it replayed from the journal. Built from the events the
 * page holds (a contiguous range up to the newest, so everything after a shown step is known).
 */
import type { WireEvent, WireEventOf } from '@/lib/studio/wire';

export interface CallRecord {
  toolCallId: string;
  toolName?: string;
  /** The seq of the model step that asked for the call. */
  stepSeq?: number;
  request?: WireEventOf<'tool-approval-request'>;
  response?: WireEventOf<'tool-approval-response'>;
  starts: WireEventOf<'tool-call-start'>[];
  end?: WireEventOf<'tool-call-end'>;
  errors: WireEventOf<'tool-call-error'>[];
  checks: WireEventOf<'side-effect-check'>[];
  resolution?: WireEventOf<'side-effect-resolution'>;
}

export interface TimelineIndex {
  calls: Map<string, CallRecord>;
  /** For a run-resume's seq: the model steps replayed from the journal (the step number of the first model call after it). */
  replayedSteps: Map<number, number>;
  /** The seqs of run-resume events, in order: each later invocation replays what was recorded before it. */
  resumes: number[];
}

/** How many later invocations replayed (did not execute again) what was recorded at `seq`. */
export function replaysAfter(index: TimelineIndex, seq: number): number {
  return index.resumes.filter((resume) => resume > seq).length;
}

export function buildTimelineIndex(events: readonly WireEvent[]): TimelineIndex {
  const calls = new Map<string, CallRecord>();
  const replayedSteps = new Map<number, number>();
  const resumes: number[] = [];
  const call = (toolCallId: string, toolName?: string): CallRecord => {
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
    switch (event.type) {
      case 'model-step': {
        if (openResume !== undefined) replayedSteps.set(openResume, event.step);
        openResume = undefined;
        const content = (event.result as { content?: unknown } | undefined)?.content;
        for (const part of Array.isArray(content) ? content : []) {
          const p = part as { type?: unknown; toolCallId?: unknown; toolName?: unknown };
          if (p?.type === 'tool-call' && typeof p.toolCallId === 'string') call(p.toolCallId, String(p.toolName ?? '')).stepSeq ??= event.seq;
        }
        break;
      }
      case 'run-resume':
        openResume = event.seq;
        resumes.push(event.seq);
        break;
      case 'tool-approval-request':
        call(event.toolCallId, event.toolName).request = event;
        break;
      case 'tool-approval-response':
        call(event.toolCallId).response = event;
        break;
      case 'tool-call-start':
        call(event.toolCallId, event.toolName).starts.push(event);
        break;
      case 'tool-call-end':
        call(event.toolCallId, event.toolName).end = event;
        break;
      case 'tool-call-error':
        call(event.toolCallId, event.toolName).errors.push(event);
        break;
      case 'side-effect-check':
        call(event.toolCallId).checks.push(event);
        break;
      case 'side-effect-resolution':
        call(event.toolCallId).resolution = event;
        break;
    }
  }
  return { calls, replayedSteps, resumes };
}
