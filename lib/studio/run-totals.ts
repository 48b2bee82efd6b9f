/**
 * A run's totals: model steps, tokens (with cache and reasoning when the provider gives them), time
 * spent in the model and in tools. A fold over events, so the server computes it over the whole journal
 * once per page and the browser adds the events that arrive live. Browser-safe and pure.
 */
import { addTokenUsage, NO_TOKENS, stepTokenUsage, type TokenCounts } from '@/lib/durable/model-usage';
import type { WireEvent } from './wire';

export interface RunTotals {
  /** The last event counted. */
  throughSeq: number;
  steps: number;
  tokens: TokenCounts;
  /** Sum of model-step latencies. */
  modelMs: number;
  /** Sum of tool-call durations (ends and errors). */
  toolMs: number;
}

export const EMPTY_TOTALS: RunTotals = {
  throughSeq: 0,
  steps: 0,
  tokens: NO_TOKENS,
  modelMs: 0,
  toolMs: 0,
};

/** `totals` plus the events after its `throughSeq` (events at or before it are already counted). */
export function addToTotals(totals: RunTotals, events: readonly Pick<WireEvent, 'seq' | 'type'>[]): RunTotals {
  let next = totals;
  for (const event of events) {
    if (event.seq <= next.throughSeq) continue;
    next = { ...next, throughSeq: event.seq };
    const e = event as WireEvent;
    if (e.type === 'model-step') {
      next.steps += 1;
      next.modelMs += Number.isFinite(e.latencyMs) ? e.latencyMs : 0;
      next.tokens = addTokenUsage(next.tokens, stepTokenUsage(e.result));
    } else if (e.type === 'tool-call-end' || e.type === 'tool-call-error') {
      next.toolMs += Number.isFinite(e.durationMs) ? e.durationMs : 0;
    }
  }
  return next;
}
