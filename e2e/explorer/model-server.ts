/**
 * The explorer's model: a real HTTP server on 127.0.0.1 speaking the OpenAI Chat Completions API
 * (non-streaming), answered by the scenario's script, so the child runs the real `@ai-sdk/openai`
 * provider, the SDK's real retries (generateText's maxRetries 2) and its real parsing.
 *
 * A request's step is the number of assistant messages in its conversation (the n-th model step of
 * the run); its attempt counts the requests for that step since the schedule began, across processes.
 * The schedule's provider faults are keyed `${step}:${attempt}`:
 *   429 | 500 | 503   an error answer with `retry-after-ms: 5` (the SDK retries it, without its 2 s backoff)
 *   reset             no answer: the socket is destroyed after 100 ms (a proxy timing out; retried, 2 s backoff)
 *   oversize          a 200 whose answer is over the journal's 1 MiB event limit: the step's tool calls
 *                     after a text of 1.06 MiB (a model that thinks aloud); the journal must keep it whole
 * Three faults in a row on one step outlast the SDK's retries: generateText throws, the run fails.
 * A request with `stream: true` (streamDurable, the `stream` fault family) is answered the same, as
 * server-sent chunks (text and arguments in pieces, the usage chunk, `[DONE]`); its `reset` is cut mid-
 * stream instead: the first half of the chunks are sent (a tool call may be among them), then the socket
 * is destroyed. Stream errors are not retried by the SDK: the run fails, resumably.
 *
 * Tool call ids are the script's, or as providers make them: `random` (new per response, like
 * OpenAI's call_…) or `sequential` (`call_0`, `call_1`… in EVERY response, as some providers number them).
 * Every request is recorded with what it was answered (`requests()`), the evidence of model calls.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IdMode, ProviderFault } from './faults';
import { seededRandom } from './random';
import type { ScriptStep } from './scenarios';

export interface ModelRequest {
  step: number;
  attempt: number;
  fault?: ProviderFault;
  /** What was answered (no fault, or oversize): tool names in order, or 'text'. */
  answered?: string[];
  toolCallIds?: string[];
}

export interface ModelServer {
  /** The provider's baseURL (…/v1). */
  url: string;
  requests(): ModelRequest[];
  close(): Promise<void>;
}

export const OVERSIZE_BYTES = 1024 * 1024 + 64 * 1024;

export async function startModelServer(args: {
  script: readonly ScriptStep[];
  faults: Readonly<Record<string, ProviderFault>>;
  ids: IdMode;
  seed: number;
}): Promise<ModelServer> {
  const { script, faults, ids } = args;
  const random = seededRandom(args.seed ^ 0x5eed);
  const attempts = new Map<number, number>();
  const log: ModelRequest[] = [];
  let responses = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse((await readBody(req)) || '{}') as { messages?: { role: string }[]; stream?: boolean };
    const streamed = body.stream === true;
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return send(res, 404, { error: { message: `no route ${req.url}` } });
    const step = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
    const attempt = (attempts.get(step) ?? 0) + 1;
    attempts.set(step, attempt);
    const fault = faults[`${step}:${attempt}`];
    const record: ModelRequest = { step, attempt, ...(fault ? { fault } : {}) };
    log.push(record);
    if (fault === 'reset' && !streamed) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      req.socket.destroy();
      return;
    }
    if (fault === '429' || fault === '500' || fault === '503') {
      const message = fault === '429' ? 'Rate limit reached for requests' : 'The server had an error while processing your request';
      return send(
        res,
        Number(fault),
        { error: { message, type: fault === '429' ? 'rate_limit_error' : 'server_error', param: null, code: null } },
        { 'retry-after-ms': '5' },
      );
    }
    responses += 1;
    const planned = script[Math.min(step, script.length - 1)] as ScriptStep;
    const created = 1_767_225_600 + step;
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const padding = fault === 'oversize' ? 'x'.repeat(OVERSIZE_BYTES) : null;
    const streamAnswer = (message: { content: string | null; tool_calls?: unknown[] }, finish: string) =>
      sendStream(res, { id: `chatcmpl-${responses}`, created, message, finish, usage, cutHalfway: fault === 'reset' });
    if ('text' in planned) {
      const content = `${planned.text}${padding ?? ''}`;
      record.answered = ['text'];
      if (streamed) return streamAnswer({ content }, 'stop');
      return send(res, 200, {
        id: `chatcmpl-${responses}`,
        object: 'chat.completion',
        created,
        model: 'explorer-model',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage,
      });
    }
    const toolCalls = planned.toolCalls.map((call, i) => ({
      id: ids === 'script' ? call.toolCallId : ids === 'sequential' ? `call_${i}` : `call_${Math.floor(random() * 2 ** 48).toString(36)}`,
      type: 'function',
      function: { name: call.toolName, arguments: call.rawArguments ?? JSON.stringify(call.input) },
    }));
    record.answered = [...(padding ? ['text'] : []), ...planned.toolCalls.map((c) => c.toolName)];
    record.toolCallIds = toolCalls.map((c) => c.id);
    if (streamed) return streamAnswer({ content: padding, tool_calls: toolCalls }, 'tool_calls');
    return send(res, 200, {
      id: `chatcmpl-${responses}`,
      object: 'chat.completion',
      created,
      model: 'explorer-model',
      choices: [{ index: 0, message: { role: 'assistant', content: padding, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
      usage,
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => structuredClone(log),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Pieces of at most `size` characters (a provider streams text and arguments in small deltas). */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/** An answer as Chat Completions streams it: role, content and tool-call deltas, the finish, the usage, [DONE]. */
async function sendStream(
  res: ServerResponse,
  args: { id: string; created: number; message: { content: string | null; tool_calls?: unknown[] }; finish: string; usage: unknown; cutHalfway: boolean },
): Promise<void> {
  const { id, created, message, finish, usage } = args;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: 'explorer-model',
    choices,
    ...extra,
  });
  const delta = (d: unknown, finishReason: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finishReason }]);
  // As OpenAI opens a stream: an empty content for a text answer, null for one that calls tools.
  const chunks: unknown[] = [delta({ role: 'assistant', content: message.tool_calls?.length ? null : '' })];
  // Big text (an oversize answer) in 64 KiB pieces, ordinary text in pieces of 8.
  if (message.content) for (const piece of pieces(message.content, message.content.length > 4096 ? 65_536 : 8)) chunks.push(delta({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    const { id: callId, function: fn } = call as { id: string; function: { name: string; arguments: string } };
    chunks.push(delta({ tool_calls: [{ index, id: callId, type: 'function', function: { name: fn.name, arguments: '' } }] }));
    for (const piece of pieces(fn.arguments, 12)) chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(delta({}, finish), chunk([], { usage }));
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const sent = args.cutHalfway ? chunks.slice(0, Math.ceil(chunks.length / 2)) : chunks;
  for (const c of sent) res.write(`data: ${JSON.stringify(c)}\n\n`);
  if (args.cutHalfway) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    res.socket?.destroy();
    return;
  }
  res.end('data: [DONE]\n\n');
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
