/**
 * The tokens a recorded model step used: the one reader of a model-step result's `usage`, in every
 * shape the journal holds (journal rows are never rewritten). Pure and browser-safe: the Studio's
 * timeline and totals, the CLI, and (through USAGE_PATHS) the runs page's SQL all read it from here.
 *
 * Shapes, from @ai-sdk/provider's types:
 * - AI SDK v7 (LanguageModelV4Usage, the same as V3): `inputTokens: { total, noCache, cacheRead, cacheWrite }`,
 *   `outputTokens: { total, text, reasoning }`, each number possibly undefined.
 * - Earlier (LanguageModelV2Usage): `inputTokens` and `outputTokens` as numbers, `reasoningTokens`,
 *   `cachedInputTokens` (and `totalTokens`, not read: the total is input plus output, as in v7).
 * A count is read only from a JSON number; anything else there (a string, null, an object) is not
 * reported. NaN, the infinities and -0 are not JSON numbers: the journal stores them tagged (json-codec.ts),
 * so SQL cannot read them as numbers, and neither does this reader.
 */

/** What a model step reports. A count the provider left out is absent, never 0. */
export interface TokenUsage {
  /** Input (prompt) tokens, cached ones included. */
  input?: number;
  /** Input tokens not read from the provider's cache. */
  noCache?: number;
  /** Input tokens read from the provider's cache. */
  cacheRead?: number;
  /** Input tokens written to the provider's cache. */
  cacheWrite?: number;
  /** Output (completion) tokens, reasoning included. */
  output?: number;
  /** Output tokens of text. */
  text?: number;
  /** Output tokens spent on reasoning. */
  reasoning?: number;
}

export type UsageCount = keyof TokenUsage;

/**
 * Where each count lives in a `usage` object: paths tried in order, the first holding a JSON number
 * wins. The one definition of the shapes: readTokenUsage walks it, SQL is built from it (the runs page).
 */
export const USAGE_PATHS: { readonly [K in UsageCount]-?: readonly (readonly string[])[] } = {
  input: [['inputTokens', 'total'], ['inputTokens']],
  noCache: [['inputTokens', 'noCache']],
  cacheRead: [['inputTokens', 'cacheRead'], ['cachedInputTokens']],
  cacheWrite: [['inputTokens', 'cacheWrite']],
  output: [['outputTokens', 'total'], ['outputTokens']],
  text: [['outputTokens', 'text']],
  reasoning: [['outputTokens', 'reasoning'], ['reasoningTokens']],
};

export const USAGE_COUNTS = Object.keys(USAGE_PATHS) as UsageCount[];

/** The counts a step's token total adds up (the runs page's tokens column, the CLI's totals): input plus output. */
export const TOTAL_COUNTS = ['input', 'output'] as const satisfies readonly UsageCount[];

/**
 * The largest count read as a count: a quadrillion tokens. A provider's junk beyond it (a negative count,
 * 1e308) reads as not reported, here and in the Studio's SQL (usage-sql.ts), so no sum of a run, an
 * agent or a day can leave a float's range and fail the page that lists it.
 */
export const MAX_TOKEN_COUNT = 1e15;

/** Whether a usage value counts as a token count (the SQL's test is the same: usage-sql.ts). */
export function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_TOKEN_COUNT && !Object.is(value, -0);
}

function at(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null || Array.isArray(here)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** A `usage` object's counts; never throws (junk reads as nothing reported). */
export function readTokenUsage(usage: unknown): TokenUsage {
  const read: TokenUsage = {};
  for (const count of USAGE_COUNTS) {
    for (const path of USAGE_PATHS[count]) {
      const value = at(usage, path);
      if (isTokenCount(value)) {
        read[count] = value;
        break;
      }
    }
  }
  return read;
}

/** The counts of a model-step event's `result` (its `usage`). */
export function stepTokenUsage(result: unknown): TokenUsage {
  return readTokenUsage(at(result, ['usage']));
}

/** Counts summed over steps: a count a step did not report adds 0. */
export type TokenCounts = Required<TokenUsage>;

export const NO_TOKENS: Readonly<TokenCounts> = Object.freeze({ input: 0, noCache: 0, cacheRead: 0, cacheWrite: 0, output: 0, text: 0, reasoning: 0 });

export function addTokenUsage(sum: Readonly<TokenCounts>, usage: TokenUsage): TokenCounts {
  const next = { ...sum };
  for (const count of USAGE_COUNTS) next[count] += usage[count] ?? 0;
  return next;
}

/** Input plus output tokens (a count not reported adds 0). */
export function tokenTotal(usage: TokenUsage): number {
  return TOTAL_COUNTS.reduce((sum, count) => sum + (usage[count] ?? 0), 0);
}

/**
 * What a price list applies to, each token counted once: input not read from or written to the cache,
 * cache reads, cache writes, output (reasoning included: providers bill it as output).
 */
export interface BilledTokens {
  uncachedInput: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export function billedTokens(usage: TokenUsage): BilledTokens {
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  // v7 providers give noCache; an earlier shape only the input total, of which cache reads are a part.
  const uncachedInput = usage.noCache ?? Math.max(0, (usage.input ?? 0) - cacheRead - cacheWrite);
  return { uncachedInput, cacheRead, cacheWrite, output: usage.output ?? 0 };
}
