/**
 * A deterministic language model for the demo: a real LanguageModelV4 whose every answer comes from
 * nextSupportAction (support-script.ts), i.e. from the conversation it is given. No API key, no
 * network; equal prompts get equal answers, in any process.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { nextSupportAction, readRequest } from './support-script';

export const SCRIPTED_PROVIDER = 'gnl-demo';
/** Milliseconds between the words of a streamed answer (default 0: the whole text in one delta). The Studio sets it so an answer visibly streams. */
export const STREAM_WORD_MS_ENV = 'GNL_DEMO_STREAM_WORD_MS';
/** Asked to answer "slowly" (the word in a user message), it streams one word a second: to watch a stream, or kill a server mid-answer. */
export const SLOW_WORD_MS = 1000;
export const SCRIPTED_MODEL_ID = 'scripted-support-v1';

export class ScriptedSupportModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = SCRIPTED_PROVIDER;
  readonly modelId = SCRIPTED_MODEL_ID;
  readonly supportedUrls: Record<string, RegExp[]> = {};

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const action = nextSupportAction(options.prompt);
    const turn = options.prompt.filter((m) => m.role === 'assistant').length;
    const content: LanguageModelV4Content[] =
      'text' in action
        ? [{ type: 'text', text: action.text }]
        : [{ type: 'tool-call', toolCallId: `call-${turn}-${action.toolName}`, toolName: action.toolName, input: JSON.stringify(action.input) }];
    return {
      content,
      finishReason: { unified: 'text' in action ? 'stop' : 'tool-calls', raw: undefined },
      usage: usageOf(JSON.stringify(options.prompt), JSON.stringify(content)),
      warnings: [],
      response: { id: `scripted-${turn}`, timestamp: new Date(), modelId: this.modelId },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const result = await this.doGenerate(options);
    const wordMs = /\bslowly\b/i.test(readRequest(options.prompt).text) ? SLOW_WORD_MS : streamWordMs();
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', ...result.response },
    ];
    for (const part of result.content) {
      if (part.type === 'text') {
        parts.push({ type: 'text-start', id: 'text' });
        const words = wordMs > 0 ? (part.text.match(/\S+\s*|\s+/g) ?? [part.text]) : [part.text];
        for (const word of words) parts.push({ type: 'text-delta', id: 'text', delta: word });
        parts.push({ type: 'text-end', id: 'text' });
      } else parts.push(part as LanguageModelV4StreamPart);
    }
    parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
    const signal = options.abortSignal;
    return {
      stream: new ReadableStream({
        async start(controller) {
          for (const part of parts) {
            if (wordMs > 0 && part.type === 'text-delta') await pause(wordMs, signal);
            controller.enqueue(part);
          }
          controller.close();
        },
      }),
    };
  }
}

function streamWordMs(): number {
  const value = Number(process.env[STREAM_WORD_MS_ENV] ?? 0);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 10_000) : 0;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** About four characters a token, like the real ones. */
function usageOf(input: string, output: string): LanguageModelV4Usage {
  const inputTokens = Math.ceil(input.length / 4);
  const outputTokens = Math.ceil(output.length / 4);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}
