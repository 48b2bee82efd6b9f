/**
 * Part of the run projection: a run as a waterfall. Each model call and each tool call attempt is a bar
 * on the run's clock (a model step's `at` minus its `latencyMs`; a tool call from its start, or its
 * end's `startedAt`, to its end or error), with its outcome; the time between invocations (waiting for
 * people, an interruption, a failure before its retry) is a gap, from run-invocations.ts. A side effect
 * whose invocation stopped (blocked, interrupted) without its end has an unknown outcome: its bar ends
 * where the invocation's record ends. A resumable fold (`throughSeq`), like run-totals.ts.
 * Pure and browser-safe; takes recorded events or their wire form alike.
 */
import { addToInvocations, epochMs, type Invocation, NO_INVOCATIONS, type RunInvocations, type SeqAtEvent } from './run-invocations';

export type WaterfallOutcome = 'ok' | 'error' | 'unknown' | 'open';

export interface WaterfallBar {
  /** `model:<step>` or `tool:<idempotencyKey>:<attempt>`. */
  id: string;
  kind: 'model' | 'tool' | 'side-effect';
  /** `step 3` for a model call, the tool's name for a tool call. */
  label: string;
  /** The event that recorded it (its end, or its start while it has none): the timeline's `#seq-N`. */
  seq: number;
  startMs: number;
  endMs: number;
  outcome: WaterfallOutcome;
  /** How a tool call's result was known, when not by executing it (check, deduplicated). */
  source?: 'check' | 'deduplicated';
  attempt?: number;
}

export type WaterfallGapKind = 'person' | 'interruption' | 'failure' | 'retry';

export interface WaterfallGap {
  kind: WaterfallGapKind;
  fromMs: number;
  /** Absent: still open (the run waits now). */
  toMs?: number;
  /** For `person`: what the run waited for. */
  waitedFor?: 'waiting-approval' | 'waiting-tool-result' | 'waiting' | 'blocked';
}

export interface RunWaterfall {
  throughSeq: number;
  bars: WaterfallBar[];
  invocations: RunInvocations;
  /** Fold state: the bar of each started tool call attempt without an end yet, by idempotency key. */
  openTools: Record<string, number>;
  /** Bars left out at the front by trimWaterfall (a long run's page keeps its newest). */
  trimmed?: number;
}

export const EMPTY_WATERFALL: RunWaterfall = { throughSeq: 0, bars: [], invocations: NO_INVOCATIONS, openTools: {} };

/**
 * The waterfall with only its newest `keep` bars (the fold goes on from it as from the whole): what a
 * long run's page sends to the browser. A tool call still open in a bar left out stays out.
 */
export function trimWaterfall(waterfall: RunWaterfall, keep: number): RunWaterfall {
  const cut = Math.max(waterfall.bars.length - keep, 0);
  if (cut === 0) return waterfall;
  const openTools = Object.fromEntries(Object.entries(waterfall.openTools).flatMap(([key, index]) => (index >= cut ? [[key, index - cut]] : [])));
  return { ...waterfall, bars: waterfall.bars.slice(cut), openTools, trimmed: (waterfall.trimmed ?? 0) + cut };
}

/** `waterfall` plus the events after its `throughSeq`. Never mutates `waterfall`. */
export function addToWaterfall(waterfall: RunWaterfall, events: readonly SeqAtEvent[]): RunWaterfall {
  if (!events.some((e) => e.seq > waterfall.throughSeq)) return waterfall;
  const next: RunWaterfall = { ...waterfall, bars: [...waterfall.bars], openTools: { ...waterfall.openTools } };
  for (const e of events) {
    if (e.seq <= next.throughSeq) continue; // counted already (an overlap of pages, a repeated live batch)
    foldBar(next, e); // before the invocations take `e`: a resume closes what the last event left open
    next.invocations = addToInvocations(next.invocations, [e]);
    next.throughSeq = e.seq;
  }
  return next;
}

function foldBar(w: RunWaterfall, e: SeqAtEvent): void {
  const at = epochMs(e.at);
  switch (e.type) {
    case 'model-step': {
      const latency = Number.isFinite(e.latencyMs) ? Math.max(e.latencyMs, 0) : 0;
      w.bars.push({ id: `model:${e.step}`, kind: 'model', label: `step ${e.step + 1}`, seq: e.seq, startMs: at - latency, endMs: at, outcome: 'ok' });
      return;
    }
    case 'tool-call-start':
      w.openTools[e.idempotencyKey] = w.bars.length;
      w.bars.push({
        id: `tool:${e.idempotencyKey}:${e.attempt}`,
        kind: e.sideEffect ? 'side-effect' : 'tool',
        label: e.toolName,
        seq: e.seq,
        startMs: at,
        endMs: at,
        outcome: 'open',
        attempt: e.attempt,
      });
      return;
    case 'tool-call-end':
    case 'tool-call-error': {
      if (e.type === 'tool-call-end' && e.source === 'provided') return; // a person's answer: the wait before it is the gap
      const outcome: WaterfallOutcome = e.type === 'tool-call-error' ? 'error' : 'ok';
      const source = e.type === 'tool-call-end' && (e.source === 'check' || e.source === 'deduplicated') ? e.source : undefined;
      const index = w.openTools[e.idempotencyKey];
      delete w.openTools[e.idempotencyKey];
      const bar = index === undefined ? undefined : w.bars[index];
      if (bar && index !== undefined) {
        w.bars[index] = { ...bar, seq: e.seq, endMs: Math.max(at, bar.startMs), outcome, ...(source ? { source } : {}) };
        return;
      }
      const duration = Number.isFinite(e.durationMs) ? Math.max(e.durationMs, 0) : 0;
      const startMs = e.startedAt ? epochMs(e.startedAt) : at - duration;
      w.bars.push({
        id: `tool:${e.idempotencyKey}:${e.attempt}`,
        kind: 'tool',
        label: e.toolName,
        seq: e.seq,
        startMs,
        endMs: Math.max(at, startMs),
        outcome,
        attempt: e.attempt,
        ...(source ? { source } : {}),
      });
      return;
    }
    case 'run-suspend':
    case 'run-resume':
    case 'run-fail':
    case 'run-cancel':
      // The invocation's record ends here (or ended before a resume that finds it running): what it left
      // started has no known outcome. Its bar ends at the last thing the invocation recorded.
      closeOpen(w, e.type === 'run-resume' ? (w.invocations.last?.at ?? at) : at);
      return;
    default:
      return;
  }
}

function closeOpen(w: RunWaterfall, at: number): void {
  for (const index of Object.values(w.openTools)) {
    const bar = w.bars[index];
    if (bar) w.bars[index] = { ...bar, endMs: Math.max(at, bar.startMs), outcome: 'unknown' };
  }
  w.openTools = {};
}

/** The time between invocations: waits for people, interruptions, failures (and the wait for a retry). */
export function waterfallGaps(invocations: readonly Invocation[]): WaterfallGap[] {
  const gaps: WaterfallGap[] = [];
  invocations.forEach((inv, i) => {
    const end = inv.end;
    const next = invocations[i + 1];
    if (!end || end.how === 'completed' || end.how === 'canceled') return;
    const toMs = next?.at;
    const to = toMs === undefined ? {} : { toMs };
    if (end.how === 'suspended') gaps.push({ kind: 'person', fromMs: end.at, waitedFor: end.status, ...to });
    else if (end.how === 'interrupted') gaps.push({ kind: 'interruption', fromMs: end.at, ...to });
    else gaps.push({ kind: next?.retry ? 'retry' : 'failure', fromMs: end.at, ...to });
  });
  return gaps;
}

/** The run's span on the clock: its first begin to its last bar or event (for an axis). */
export function waterfallSpan(w: RunWaterfall): { fromMs: number; toMs: number } | undefined {
  const first = w.invocations.invocations[0];
  const last = w.invocations.last;
  if (!first || !last) return undefined;
  const fromMs = Math.min(first.at, ...w.bars.slice(0, 1).map((b) => b.startMs));
  return { fromMs, toMs: Math.max(last.at, fromMs) };
}
