/**
 * Part of the run projection: a run's totals (model steps, tokens with cache and reasoning when the
 * provider gives them, billed tokens per model for pricing (model-tokens.ts), time spent in the model
 * and in tools). A fold over events that resumes where it stopped (`throughSeq`), so the Studio's
 * server computes it over the whole journal once per page and the browser adds the events that arrive live. Token counts come from the one usage reader
 * (model-usage.ts). Pure and browser-safe; takes recorded events or their wire form alike.
 */
import type { JournalEvent } from '../journal/events';
import { addModelStep, type ModelTokens } from '../usage/model-tokens';
import { addTokenUsage, NO_TOKENS, stepTokenUsage, type TokenCounts } from '../usage/model-usage';

type SeqEvent = JournalEvent & { seq: number };

export interface RunTotals {
  /** The last event counted. */
  throughSeq: number;
  steps: number;
  tokens: TokenCounts;
  /** Billed tokens per model, for pricing (lib/cost). */
  models: ModelTokens[];
  /** Sum of model-step latencies. */
  modelMs: number;
  /** Sum of tool-call durations (ends and errors). */
  toolMs: number;
}

export const EMPTY_TOTALS: RunTotals = {
  throughSeq: 0,
  steps: 0,
  tokens: NO_TOKENS,
  models: [],
  modelMs: 0,
  toolMs: 0,
};

/** `totals` plus the events after its `throughSeq` (events at or before it are already counted). */
export function addToTotals(totals: RunTotals, events: readonly SeqEvent[]): RunTotals {
  let next = totals;
  for (const e of events) {
    if (e.seq <= next.throughSeq) continue;
    next = { ...next, throughSeq: e.seq };
    if (e.type === 'model-step') {
      next.steps += 1;
      next.modelMs += Number.isFinite(e.latencyMs) ? e.latencyMs : 0;
      next.tokens = addTokenUsage(next.tokens, stepTokenUsage(e.result));
      next.models = addModelStep(next.models, e);
    } else if (e.type === 'tool-call-end' || e.type === 'tool-call-error') {
      next.toolMs += Number.isFinite(e.durationMs) ? e.durationMs : 0;
    }
  }
  return next;
}

/** Each model step's billed tokens (model-tokens.ts), in journal order: what a step cost is priced from (`gnl show`). */
export function stepModelTokens(events: readonly SeqEvent[]): { seq: number; step: number; tokens: ModelTokens }[] {
  return events.flatMap((e) => (e.type === 'model-step' ? [{ seq: e.seq, step: e.step, tokens: addModelStep([], e)[0] as ModelTokens }] : []));
}
