/**
 * A deterministic embedding model for tests and seeds (the AI SDK's MockEmbeddingModelV4): each word
 * hashed into one of 64 dimensions, so texts that share words are similar. Its calls are counted
 * (`doEmbedCalls`): a test can say the model was not asked again.
 */
import { MockEmbeddingModelV4 } from 'ai/test';

export const WORD_DIMENSIONS = 64;

export function wordVector(text: string): number[] {
  const v = new Array<number>(WORD_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    v[h % WORD_DIMENSIONS] = (v[h % WORD_DIMENSIONS] ?? 0) + 1;
  }
  return v;
}

export function wordEmbeddingModel() {
  return new MockEmbeddingModelV4({
    provider: 'test',
    modelId: 'words-64',
    maxEmbeddingsPerCall: 100,
    doEmbed: async ({ values }) => ({ embeddings: values.map((value) => wordVector(String(value))), warnings: [] }),
  });
}
