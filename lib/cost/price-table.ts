/**
 * A price table resolved for use: per provider family and model id, a model's prices in USD per million
 * tokens and where they come from. Pure and browser-safe (types and a lookup): the server reads the files
 * (price-file.ts) and hands the table to whoever prices tokens (cost.ts).
 */

/** USD per million tokens. A count with no price here is unknown for this model, never 0. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Input read from the provider's cache. */
  cacheRead?: number;
  /** Input written to the provider's cache. */
  cacheWrite?: number;
  /** Reasoning tokens, where the provider prices them apart from output; absent: priced as output. */
  reasoning?: number;
}

/** A price and its provenance. */
export interface PriceEntry extends ModelPrice {
  /** The day the price was taken (YYYY-MM-DD), from its file's `takenOn`. */
  takenOn: string;
  /** `built-in` (lib/cost/prices.json) or the override file's path. */
  from: string;
}

export interface PriceTable {
  /** provider family → model id → price. */
  models: Record<string, Record<string, PriceEntry>>;
  /** The files the table was built from, in order (later ones override). */
  files: { from: string; takenOn: string }[];
  /** Set when the override file could not be used: then the table is empty and every price is unknown. */
  problem?: string;
}

export const NO_PRICES: PriceTable = { models: {}, files: [] };

/** The family a recorded provider belongs to: up to its first dot (`openai.responses` → `openai`). */
export function providerFamily(provider: string): string {
  const dot = provider.indexOf('.');
  return dot < 0 ? provider : provider.slice(0, dot);
}

/** The price of a model as a step recorded it; undefined when the table has none. Ids match exactly (a dated snapshot is its own entry). */
export function findPrice(table: PriceTable, provider: string, modelId: string): PriceEntry | undefined {
  const family = providerFamily(provider);
  // Own keys only: a model id is recorded data, and `constructor` must not find Object's.
  if (!Object.hasOwn(table.models, family)) return undefined;
  const models = table.models[family] as Record<string, PriceEntry>;
  return Object.hasOwn(models, modelId) ? models[modelId] : undefined;
}
