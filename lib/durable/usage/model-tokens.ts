/**
 * A run's billed tokens per model: what a price list applies to, summed per (provider, modelId) as each
 * model step recorded them, so a price can be looked up per model (lib/cost). Pure and browser-safe; part
 * of the run totals (run-totals.ts), and the shape lib/studio's SQL sums (usage-sql.ts, billedTokensSql).
 */
import { type BilledTokens, billedTokens, stepTokenUsage } from './model-usage';

export interface ModelTokens extends BilledTokens {
  /** The provider as the step recorded it (`openai.responses`, `anthropic.messages`, …). */
  provider: string;
  modelId: string;
  /** Model steps of this model. */
  steps: number;
  /** Of them, steps that did not report both input and output tokens: their cost cannot be known. */
  unmetered: number;
  /** Output tokens spent on reasoning (a part of `output`), for a price list that prices them apart. */
  reasoning: number;
}

/** A step that reported its input and its output tokens: the least a price needs. */
export function isMetered(result: unknown): boolean {
  const usage = stepTokenUsage(result);
  return usage.input !== undefined && usage.output !== undefined;
}

/** `models` with one model step added to its (provider, modelId) entry (a new entry at the end when it is the first). */
export function addModelStep(models: readonly ModelTokens[], step: { provider: string; modelId: string; result: unknown }): ModelTokens[] {
  const usage = stepTokenUsage(step.result);
  const billed = billedTokens(usage);
  const at = models.findIndex((m) => m.provider === step.provider && m.modelId === step.modelId);
  const before = at >= 0 ? models[at] : undefined;
  const sum: ModelTokens = {
    provider: step.provider,
    modelId: step.modelId,
    steps: (before?.steps ?? 0) + 1,
    unmetered: (before?.unmetered ?? 0) + (isMetered(step.result) ? 0 : 1),
    uncachedInput: (before?.uncachedInput ?? 0) + billed.uncachedInput,
    cacheRead: (before?.cacheRead ?? 0) + billed.cacheRead,
    cacheWrite: (before?.cacheWrite ?? 0) + billed.cacheWrite,
    output: (before?.output ?? 0) + billed.output,
    reasoning: (before?.reasoning ?? 0) + (usage.reasoning ?? 0),
  };
  return at >= 0 ? models.map((m, i) => (i === at ? sum : m)) : [...models, sum];
}
