import type { LanguageModelV4 } from '@ai-sdk/provider';
import { gateway, type LanguageModel } from 'ai';

/** A model id string resolves like generateText resolves it: the global default provider, else the gateway. */
export function resolveModel(model: LanguageModel): LanguageModelV4 {
  if (typeof model !== 'string') return model as LanguageModelV4;
  const provider = (globalThis as { AI_SDK_DEFAULT_PROVIDER?: { languageModel(id: string): LanguageModelV4 } }).AI_SDK_DEFAULT_PROVIDER ?? gateway;
  return provider.languageModel(model) as LanguageModelV4;
}
