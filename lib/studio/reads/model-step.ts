/**
 * What a recorded model step says, read defensively: the journal keeps the model's raw result
 * (LanguageModelV4GenerateResult without bodies), and older rows or other providers may hold older
 * shapes (a finish reason as a string, usage as plain numbers: the core's model-usage.ts reads those).
 * Browser-safe and pure.
 */
import { stepTokenUsage, type TokenUsage } from '@/lib/durable/usage';

export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  /** The arguments, parsed when the model sent JSON text (v4 tool calls carry their input as a JSON string). */
  input: unknown;
}

export interface StepView {
  text: string;
  reasoning: string;
  toolCalls: StepToolCall[];
  finishReason?: string;
  /** The provider's own finish reason, when it differs from the unified one. */
  rawFinishReason?: string;
  usage: TokenUsage;
}

const obj = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function readModelStep(result: unknown): StepView {
  const r = obj(result) ?? {};
  const content = Array.isArray(r.content) ? r.content : [];
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: StepToolCall[] = [];
  for (const part of content) {
    const p = obj(part);
    if (!p) continue;
    if (p.type === 'text' && typeof p.text === 'string') text.push(p.text);
    else if (p.type === 'reasoning' && typeof p.text === 'string') reasoning.push(p.text);
    else if (p.type === 'tool-call') {
      const input = typeof p.input === 'string' ? parseJsonText(p.input) : (p.input ?? p.args);
      toolCalls.push({ toolCallId: str(p.toolCallId) ?? '', toolName: str(p.toolName) ?? '', input });
    }
  }
  const finish = obj(r.finishReason);
  const finishReason = finish ? str(finish.unified) : str(r.finishReason);
  const raw = finish ? str(finish.raw) : undefined;
  return {
    text: text.join(''),
    reasoning: reasoning.join('\n'),
    toolCalls,
    ...(finishReason ? { finishReason } : {}),
    ...(raw && raw !== finishReason ? { rawFinishReason: raw } : {}),
    usage: stepTokenUsage(r),
  };
}
