/**
 * What model steps cost: billed tokens per model (the core's ModelTokens) times a price table's prices.
 * Sums are exact: a price is turned into whole pico-dollars (10^-12 USD) per token, so a cost is an
 * integer count of pico-dollars and adding costs never rounds (up to 2^53 pico-dollars, about $9,000
 * per sum; past that a sum rounds by a pico-dollar or so). What cannot be priced is counted and named,
 * never priced at 0. Pure and browser-safe.
 */
import type { ModelTokens } from '@/lib/durable/projection';
import { findPrice, type PriceTable } from './price-table';

/** Why a model's steps have no price: the table has none for the model; or it has none for a kind of token they used; or a step did not report its usage. */
export type UnpricedReason = 'no-price' | 'cache-read-unpriced' | 'cache-write-unpriced' | 'usage-unreported';

export interface UnpricedSteps {
  provider: string;
  modelId: string;
  steps: number;
  reason: UnpricedReason;
}

export interface Cost {
  /** The known part: the priced steps' cost in pico-dollars (an integer). */
  picoUsd: number;
  pricedSteps: number;
  unpricedSteps: number;
  /** Which steps have no price, per model and reason. */
  unpriced: UnpricedSteps[];
  /** The days the prices used were taken, sorted. */
  takenOn: string[];
}

export const NO_COST: Cost = Object.freeze({ picoUsd: 0, pricedSteps: 0, unpricedSteps: 0, unpriced: [], takenOn: [] }) as Cost;

/** USD per million tokens as whole pico-dollars per token (a price has at most 6 decimals that matter). */
const picoPerToken = (usdPerMillion: number) => Math.round(usdPerMillion * 1e6);

/** The cost of one model's billed tokens under `table`. */
export function modelCost(tokens: ModelTokens, table: PriceTable): Cost {
  const unpriced = (reason: UnpricedReason, steps = tokens.steps): Cost => ({
    ...NO_COST,
    unpricedSteps: steps,
    unpriced: [{ provider: tokens.provider, modelId: tokens.modelId, steps, reason }],
  });
  const price = findPrice(table, tokens.provider, tokens.modelId);
  if (!price) return unpriced('no-price');
  if (tokens.cacheRead > 0 && price.cacheRead === undefined) return unpriced('cache-read-unpriced');
  if (tokens.cacheWrite > 0 && price.cacheWrite === undefined) return unpriced('cache-write-unpriced');
  const reasoning = price.reasoning === undefined ? 0 : Math.min(tokens.reasoning, tokens.output);
  const picoUsd =
    tokens.uncachedInput * picoPerToken(price.input) +
    tokens.cacheRead * picoPerToken(price.cacheRead ?? 0) +
    tokens.cacheWrite * picoPerToken(price.cacheWrite ?? 0) +
    (tokens.output - reasoning) * picoPerToken(price.output) +
    reasoning * picoPerToken(price.reasoning ?? 0);
  const priced: Cost = { picoUsd, pricedSteps: tokens.steps - tokens.unmetered, unpricedSteps: 0, unpriced: [], takenOn: [price.takenOn] };
  // A step that did not report its usage added what it did report (a lower bound) and is counted as unpriced.
  return tokens.unmetered > 0 ? addCosts(priced, unpriced('usage-unreported', tokens.unmetered)) : priced;
}

/** Two costs together: the known parts added, the unpriced steps listed once per model and reason. */
export function addCosts(a: Cost, b: Cost): Cost {
  const unpriced = a.unpriced.map((u) => ({ ...u }));
  for (const u of b.unpriced) {
    const same = unpriced.find((x) => x.provider === u.provider && x.modelId === u.modelId && x.reason === u.reason);
    if (same) same.steps += u.steps;
    else unpriced.push({ ...u });
  }
  return {
    picoUsd: a.picoUsd + b.picoUsd,
    pricedSteps: a.pricedSteps + b.pricedSteps,
    unpricedSteps: a.unpricedSteps + b.unpricedSteps,
    unpriced,
    takenOn: [...new Set([...a.takenOn, ...b.takenOn])].sort(),
  };
}

/** The cost of a run's (or any group's) billed tokens per model. */
export function costOf(models: readonly ModelTokens[], table: PriceTable): Cost {
  return models.reduce((sum, tokens) => addCosts(sum, modelCost(tokens, table)), NO_COST);
}

/** The known part in USD. */
export function costUsd(cost: Pick<Cost, 'picoUsd'>): number {
  return cost.picoUsd / 1e12;
}
