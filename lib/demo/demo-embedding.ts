/**
 * The embedding model the demo agent recalls with (its memory: agents/support.ts). With OPENAI_API_KEY
 * set, OpenAI's (GNL_EMBEDDING_MODEL, default text-embedding-3-small; at OPENAI_BASE_URL when set). Otherwise a deterministic local model: each word hashed into one of 256
 * dimensions, so texts that share words are similar. It needs no network and gives equal vectors in any
 * process, as the scripted chat model gives equal answers: the demo's recall works, and is testable,
 * with no key at all. demoEmbeddingInfo() says which, and why.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { EmbeddingModelV4, EmbeddingModelV4CallOptions, EmbeddingModelV4Result } from '@ai-sdk/provider';
import type { Env } from './demo-config';

export const EMBEDDING_MODEL_ENV = 'GNL_EMBEDDING_MODEL';
export const WORDS_MODEL_ID = 'words-256';
export const WORDS_PROVIDER = 'gnl-demo';
const DIMENSIONS = 256;

export type DemoEmbeddingInfo =
  | { kind: 'words'; provider: typeof WORDS_PROVIDER; modelId: typeof WORDS_MODEL_ID; reason: string }
  | { kind: 'provider'; provider: 'openai'; modelId: string };

export function demoEmbeddingInfo(env: Env = process.env): DemoEmbeddingInfo {
  if (!env.OPENAI_API_KEY?.trim()) return { kind: 'words', provider: WORDS_PROVIDER, modelId: WORDS_MODEL_ID, reason: 'OPENAI_API_KEY is not set' };
  return { kind: 'provider', provider: 'openai', modelId: env[EMBEDDING_MODEL_ENV]?.trim() || 'text-embedding-3-small' };
}

export function demoEmbeddingModel(env: Env = process.env): EmbeddingModelV4 {
  const info = demoEmbeddingInfo(env);
  if (info.kind === 'words') return new WordsEmbeddingModel();
  const baseURL = env.OPENAI_BASE_URL?.trim();
  return createOpenAI({ apiKey: env.OPENAI_API_KEY, ...(baseURL ? { baseURL } : {}) }).embeddingModel(info.modelId);
}

/** Words (letters and digits, lower case) hashed into 256 counts: shared words make similar vectors. */
export function wordsVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 16777619) >>> 0;
    vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] ?? 0) + 1;
  }
  return vector;
}

export class WordsEmbeddingModel implements EmbeddingModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly provider = WORDS_PROVIDER;
  readonly modelId = WORDS_MODEL_ID;
  readonly maxEmbeddingsPerCall = 256;
  readonly supportsParallelCalls = true;

  async doEmbed(options: EmbeddingModelV4CallOptions): Promise<EmbeddingModelV4Result> {
    return {
      embeddings: options.values.map(wordsVector),
      usage: { tokens: options.values.reduce((sum, v) => sum + Math.ceil(v.length / 4), 0) },
      warnings: [],
    };
  }
}
