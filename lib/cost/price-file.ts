/**
 * The price files: the built-in table (prices.json, with the day its prices were taken) and the
 * override a deployment names in GNL_PRICES_FILE (the same schema), checked with zod at this edge and
 * merged model by model over the built-in one (an override's `null` takes a built-in price away).
 * Server and CLI only (node:fs); read on each call, so an edited file counts from the next page or command.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GnlError } from '@/lib/durable';
import builtIn from './prices.json';
import type { PriceEntry, PriceTable } from './price-table';

export const PRICES_FILE_ENV = 'GNL_PRICES_FILE';

const usdPerMillion = z.number().finite().nonnegative();
const modelPrice = z.strictObject({
  input: usdPerMillion,
  output: usdPerMillion,
  cacheRead: usdPerMillion.optional(),
  cacheWrite: usdPerMillion.optional(),
  reasoning: usdPerMillion.optional(),
});

/** The schema of prices.json and of an override file. */
export const priceFileSchema = z.strictObject({
  $comment: z.string().optional(),
  /** The day the prices were taken from the providers. */
  takenOn: z.iso.date(),
  /** Where they were taken from, per provider. */
  sources: z.record(z.string(), z.string()).optional(),
  /** provider family → model id → price (null: no price, even if the built-in table has one). */
  models: z.record(z.string().min(1), z.record(z.string().min(1), modelPrice.nullable())),
});

export type PriceFile = z.infer<typeof priceFileSchema>;

/** A price file that cannot be used: which file, which entry, and why (`cause`: the read, JSON or zod error). */
export class PriceFileError extends GnlError {
  override name = 'PriceFileError';
  readonly file: string;
  /** The entry at fault (`models.openai.gpt-4o.input`), or undefined when the file as a whole is. */
  readonly entry: string | undefined;
  constructor(args: { file: string; entry?: string; problem: string; cause?: unknown }) {
    super(`Price file ${args.file}${args.entry ? `, entry ${args.entry}` : ''}: ${args.problem}`, { cause: args.cause });
    this.file = args.file;
    this.entry = args.entry;
  }
  static override isInstance = (error: unknown): error is PriceFileError => GnlError.isInstance(error) && error.name === 'PriceFileError';
}

/** A file's parsed JSON checked against the schema; PriceFileError names the first bad entry. */
export function parsePriceFile(value: unknown, file: string): PriceFile {
  const parsed = priceFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const entry = issue?.path.length ? issue.path.map(String).join('.') : undefined;
  throw new PriceFileError({ file, ...(entry ? { entry } : {}), problem: issue?.message ?? 'not a price file', cause: parsed.error });
}

/** The files merged in order, model by model. */
export function mergePriceFiles(files: readonly { from: string; file: PriceFile }[]): PriceTable {
  const models: Record<string, Record<string, PriceEntry>> = {};
  for (const { from, file } of files) {
    for (const [family, byId] of Object.entries(file.models)) {
      const target = Object.hasOwn(models, family) ? (models[family] as Record<string, PriceEntry>) : {};
      models[family] = target;
      for (const [modelId, price] of Object.entries(byId)) {
        if (price === null) delete target[modelId];
        else target[modelId] = { ...price, takenOn: file.takenOn, from };
      }
    }
  }
  return { models, files: files.map(({ from, file }) => ({ from, takenOn: file.takenOn })) };
}

function readPriceFile(path: string): PriceFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PriceFileError({ file: path, problem: `cannot be read (set by ${PRICES_FILE_ENV})`, cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PriceFileError({ file: path, problem: 'is not JSON', cause: error });
  }
  return parsePriceFile(value, path);
}

/** The built-in table, with GNL_PRICES_FILE's merged over it when set. Throws PriceFileError when either is bad. */
export function loadPriceTable(env: Record<string, string | undefined> = process.env): PriceTable {
  const files = [{ from: 'built-in', file: parsePriceFile(builtIn, 'lib/cost/prices.json') }];
  const override = env[PRICES_FILE_ENV]?.trim();
  if (override) files.push({ from: override, file: readPriceFile(override) });
  return mergePriceFiles(files);
}

/**
 * loadPriceTable for a page: a bad override file leaves every price unknown and says why (`problem`),
 * rather than failing the page or falling back to prices the deployment meant to replace.
 */
export function pagePriceTable(env: Record<string, string | undefined> = process.env): PriceTable {
  try {
    return loadPriceTable(env);
  } catch (error) {
    if (!PriceFileError.isInstance(error)) throw error;
    return { models: {}, files: [], problem: error.message };
  }
}
