/**
 * A run's cost for `gnl show`: per model step and in total, under the price table (lib/cost), as the
 * header's lines and as `--json`'s `cost`. What has no price is named, never priced at 0.
 */
import { addToTotals, EMPTY_TOTALS, type RecordedEvent, stepModelTokens } from '@/lib/durable';
import { type Cost, costOf, costText, costUsd, type PriceTable, type UnpricedReason, unpricedText } from '@/lib/cost';
import { clean } from './format';

export interface StepCost {
  seq: number;
  step: number;
  provider: string;
  modelId: string;
  /** USD; null when the step has no price. */
  usd: number | null;
  /** Why it has none (absent when priced). */
  unpriced?: UnpricedReason;
}

export interface RunCost {
  /** The known part, in USD. */
  usd: number;
  /** "$0.0123", "≥ $0.0123 (2 steps unpriced)" or "price unknown". */
  text: string;
  pricedSteps: number;
  unpricedSteps: number;
  unpriced: Cost['unpriced'];
  /** The days the prices used were taken. */
  pricesTakenOn: string[];
  steps: StepCost[];
}

export function runCost(events: readonly RecordedEvent[], prices: PriceTable): RunCost {
  const steps = stepModelTokens(events).map(({ seq, step, tokens }): StepCost => {
    const cost = costOf([tokens], prices);
    const reason = cost.unpriced[0]?.reason;
    return {
      seq,
      step,
      provider: tokens.provider,
      modelId: tokens.modelId,
      usd: cost.pricedSteps > 0 ? costUsd(cost) : null,
      ...(reason ? { unpriced: reason } : {}),
    };
  });
  const total = costOf(addToTotals(EMPTY_TOTALS, events).models, prices);
  return {
    usd: costUsd(total),
    text: costText(total),
    pricedSteps: total.pricedSteps,
    unpricedSteps: total.unpricedSteps,
    unpriced: total.unpriced,
    pricesTakenOn: total.takenOn,
    steps,
  };
}

/** The header's cost line, and a line for each model it could not price (model ids escaped: recorded data). */
export function costLines(cost: RunCost): string[] {
  const taken = cost.pricesTakenOn.length > 0 ? ` · prices taken on ${cost.pricesTakenOn.join(', ')}` : '';
  const unpriced = unpricedText(cost).map((line) => `          unpriced: ${clean(line)}`);
  return [`Cost      ${cost.text}${taken}`, ...unpriced];
}
