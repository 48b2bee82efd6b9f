/**
 * Token usage, browser-safe (nothing imported at run time): model-usage.ts is the one reader of a model
 * step's usage (lib/studio/reads/usage-sql.ts builds its SQL from it), model-tokens.ts the billed tokens
 * per model that the projection's totals fold, stop-conditions.ts the token budgets (tokenBudgetIs).
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { tokenBudgetIs, type TokenBudget } from './stop-conditions';
export {
  readTokenUsage,
  stepTokenUsage,
  tokenTotal,
  addTokenUsage,
  billedTokens,
  NO_TOKENS,
  type TokenUsage,
  type TokenCounts,
  type BilledTokens,
  type UsageCount,
  USAGE_PATHS,
  USAGE_COUNTS,
  TOTAL_COUNTS,
  MAX_TOKEN_COUNT,
  isTokenCount,
} from './model-usage';
export { addModelStep, isMetered, type ModelTokens } from './model-tokens';
