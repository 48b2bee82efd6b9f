/**
 * A cost as a person reads it, the same in the Studio and the CLI: "$0.0123", "≥ $0.0123 (2 steps
 * unpriced)", "price unknown". Pure and browser-safe. Model ids in `unpricedText` are recorded data:
 * render them as text (the CLI escapes them first).
 */
import { type Cost, costUsd, type UnpricedReason } from './cost';

/** Dollars with enough decimals to show three significant digits of a small amount (at least cents). */
export function usdText(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01) return `$${usd.toFixed(4)}`;
  const decimals = Math.min(12, 2 - Math.floor(Math.log10(usd)));
  return `$${usd.toFixed(decimals)}`;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The cost in one short phrase: the known part, and how many steps it leaves out. */
export function costText(cost: Cost): string {
  if (cost.unpricedSteps === 0) return usdText(costUsd(cost));
  if (cost.pricedSteps === 0) return 'price unknown';
  return `≥ ${usdText(costUsd(cost))} (${plural(cost.unpricedSteps, 'step')} unpriced)`;
}

const REASON_TEXT: Record<UnpricedReason, string> = {
  'no-price': 'no price in the table',
  'cache-read-unpriced': 'cache reads have no price in the table',
  'cache-write-unpriced': 'cache writes have no price in the table',
  'usage-unreported': 'the step reported no input or output tokens',
};

/** Why each unpriced group has no price, one phrase each: `gnl-demo/scripted-support-v1: no price in the table (3 steps)`. */
export function unpricedText(cost: Pick<Cost, 'unpriced'>): string[] {
  return cost.unpriced.map((u) => `${u.provider}/${u.modelId}: ${REASON_TEXT[u.reason]} (${plural(u.steps, 'step')})`);
}
