/**
 * Which model the demo agent runs on. GNL_MODEL names a real model — `openai:gpt-4.1-mini`,
 * `anthropic:claude-sonnet-4-5`, or a bare id (`claude-…` is Anthropic; anything else goes to the
 * provider whose key is set, OpenAI first) — and runs on it when that provider's key
 * (OPENAI_API_KEY / ANTHROPIC_API_KEY) is set. Otherwise the deterministic scripted model answers,
 * and demoModelInfo() says so and why (the Studio shows it). Nothing here throws: a setting that
 * cannot be used falls back to the scripted model with the reason.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { Env } from './demo-config';
import { SCRIPTED_MODEL_ID, SCRIPTED_PROVIDER, ScriptedSupportModel } from './scripted-support-model';

export const MODEL_ENV = 'GNL_MODEL';

type RealProvider = 'openai' | 'anthropic';
const KEY_ENV: Record<RealProvider, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

export type DemoModelInfo =
  /** The deterministic scripted model; `reason` says why no real one is used. */
  | { kind: 'scripted'; provider: typeof SCRIPTED_PROVIDER; modelId: typeof SCRIPTED_MODEL_ID; reason: string }
  /** A real provider, through the AI SDK's provider package. */
  | { kind: 'provider'; provider: RealProvider; modelId: string };

export function demoModelInfo(env: Env = process.env): DemoModelInfo {
  const scripted = (reason: string): DemoModelInfo => ({ kind: 'scripted', provider: SCRIPTED_PROVIDER, modelId: SCRIPTED_MODEL_ID, reason });
  const hasKey = (p: RealProvider) => Boolean(env[KEY_ENV[p]]?.trim());
  const name = env[MODEL_ENV]?.trim();
  if (!name) {
    return scripted(hasKey('openai') || hasKey('anthropic') ? `${MODEL_ENV} is not set` : `no ${MODEL_ENV}, OPENAI_API_KEY or ANTHROPIC_API_KEY is set`);
  }
  const prefixed = /^([a-z]+):(.+)$/.exec(name);
  let provider: RealProvider | undefined;
  let modelId = name;
  if (prefixed) {
    const [, given, id] = prefixed as unknown as [string, string, string];
    if (given !== 'openai' && given !== 'anthropic') return scripted(`${MODEL_ENV}="${name}": the provider must be openai or anthropic`);
    provider = given;
    modelId = id;
  } else if (/^claude/i.test(name)) provider = 'anthropic';
  else provider = hasKey('openai') ? 'openai' : hasKey('anthropic') ? 'anthropic' : 'openai';
  if (!hasKey(provider)) return scripted(`${MODEL_ENV}="${name}" needs ${KEY_ENV[provider]}, which is not set`);
  return { kind: 'provider', provider, modelId };
}

/** The model demoModelInfo describes. Provider packages read their key from the same environment. */
export function demoModel(env: Env = process.env): LanguageModelV4 {
  const info = demoModelInfo(env);
  if (info.kind === 'scripted') return new ScriptedSupportModel();
  if (info.provider === 'openai') return createOpenAI({ apiKey: env.OPENAI_API_KEY }).languageModel(info.modelId);
  return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY }).languageModel(info.modelId);
}
