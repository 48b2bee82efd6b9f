/**
 * A model provider for tests that speaks the OpenAI Chat Completions wire format over real HTTP, so the
 * real `@ai-sdk/openai` provider and the SDK's own retry, parsing and repair run against it. Each
 * request is answered from a script by its step (the number of assistant messages in the request),
 * unless a fault queued for that step answers first: an HTTP status (429 and 5xx carry
 * `retry-after-ms`, so the SDK's retry waits milliseconds, not seconds), a hang past the client's
 * timeout, or a malformed body. The server counts requests per step: the counter outside the agent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';

export type ScriptedAnswer = { text: string } | { toolCalls: { id: string; name: string; arguments: string | Record<string, unknown> }[] };

export type Fault = { status: 400 | 429 | 500 | 502 | 503; body?: string } | { hangMs: number } | { malformed: true };

export interface ChatCompletionsServer {
  url: string;
  /** `createOpenAI(...).chat(modelId)` pointed at this server. */
  model(modelId?: string): ReturnType<ReturnType<typeof createOpenAI>['chat']>;
  /** Queue faults for a step: each request for that step takes the next one until they run out. */
  fail(step: number, ...faults: Fault[]): void;
  /** Requests received per step (faulted ones included). */
  requests(step: number): number;
  /** Requests answered successfully per step: the model calls a run paid for. */
  answered(step: number): number;
  close(): Promise<void>;
}

/** `port`: listen there (a port a test kept free, to have a provider refuse connections first). Default: any free port. */
export async function startChatCompletionsServer(script: (step: number) => ScriptedAnswer, options: { port?: number } = {}): Promise<ChatCompletionsServer> {
  const faults = new Map<number, Fault[]>();
  const received = new Map<number, number>();
  const ok = new Map<number, number>();
  const bump = (map: Map<number, number>, step: number) => map.set(step, (map.get(step) ?? 0) + 1);
  const server: Server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { messages: { role: string }[]; model: string };
    const step = body.messages.filter((m) => m.role === 'assistant').length;
    bump(received, step);
    const fault = faults.get(step)?.shift();
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'application/json', 'retry-after-ms': '5' });
      res.end(fault.body ?? JSON.stringify({ error: { message: `injected ${fault.status}`, type: 'server_error', code: null } }));
      return;
    }
    if (fault && 'hangMs' in fault) {
      await new Promise((resolve) => setTimeout(resolve, fault.hangMs));
      res.destroy();
      return;
    }
    if (fault && 'malformed' in fault) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [');
      return;
    }
    bump(ok, step);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion(script(step), step, body.model)));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const provider = createOpenAI({ baseURL: url, apiKey: 'test-key' });
  return {
    url,
    model: (modelId = 'scripted-chat') => provider.chat(modelId),
    fail: (step, ...queued) => faults.set(step, [...(faults.get(step) ?? []), ...queued]),
    requests: (step) => received.get(step) ?? 0,
    answered: (step) => ok.get(step) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function completion(answer: ScriptedAnswer, step: number, model: string) {
  const message =
    'text' in answer
      ? { role: 'assistant', content: answer.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: answer.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
          })),
        };
  return {
    id: `chatcmpl-${step}`,
    object: 'chat.completion',
    created: 1767225600 + step,
    model,
    choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
