/**
 * The streaming guide's route, run (docs/streaming.md): a real Request through `POST`, the UI message
 * stream read as the browser would, on both journals, judged by the outside world's refund counter. The
 * same turn sent again (a retry, a reload) replays the recorded answer without the model or the refund.
 */
import { expect, it } from 'vitest';
import { RunBusyError, RunState } from '@gnldev/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type ScriptedStep, streamingModel } from '@/tests/support/scripted-model';
import { MockLanguageModelV4 } from 'ai/test';
import type { LanguageModelV4, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamParts } from '@/tests/support/scripted-model';
import { chatRoute, resumeRoute } from './chat-route';
import { refundOnce } from './refund-tools';
import { startOutsideWorld } from './test-support/outside-world';

const script = (step: number): ScriptedStep =>
  step === 0
    ? {
        toolCalls: [
          { toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } },
        ],
      }
    : { text: 'Refunded 40 EUR for o_17.' };

const turn = (id: string) =>
  new Request('http://studio.test/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      messages: [
        {
          id: 'm1',
          role: 'user',
          parts: [{ type: 'text', text: 'Order o_17 arrived broken. Refund it.' }],
        },
      ],
    }),
  });

/** The answer's text as the browser assembles it from the UI message stream's text deltas. */
function textOf(body: string): string {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; delta?: string })
    .flatMap((chunk) => (chunk.type === 'text-delta' && chunk.delta ? [chunk.delta] : []))
    .join('');
}

describeEachJournal('the streaming guide: a chat route on streamDurable', (target) => {
  const { journal } = target.open();
  /** Takes and gives back the run's hold until no invocation holds it (RunBusyError meanwhile), or the deadline passes. */
  const heldUntilReleased = async (runId: string, deadline: number) => {
    for (;;) {
      try {
        await (await journal.hold(runId)).release();
        return;
      } catch (error) {
        if (!RunBusyError.isInstance(error) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };

  it('streams the answer, refunds once, and the same turn sent again replays it without the model or the refund', async () => {
    const world = await startOutsideWorld();
    try {
      const chat = uniqueRunId('chat');
      const first = streamingModel(script);
      const response = await chatRoute({
        journal,
        model: first.model,
        tools: { refund: refundOnce(`${world.url}/psp`) },
      })(turn(chat));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const body = await response.text();
      expect(body).toContain('"type":"tool-output-available"');
      expect(textOf(body)).toBe('Refunded 40 EUR for o_17.');
      expect(world.refunds.get('o_17')).toHaveLength(1);
      // The stream ends before the run's completion is journaled: wait for it as a second request would have to.
      const runId = `chat:${chat}:m1`;
      const deadline = Date.now() + 10_000;
      while ((await journal.getRun(runId))?.status !== 'completed' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(new RunState(await journal.events(runId)).status).toBe('completed');
      // …and for its invocation to let the run go (the hold is released just after the completion commits): a
      // request in between is refused as busy (RunBusyError), which is not what this test is about.
      await heldUntilReleased(runId, deadline);

      const again = streamingModel(script);
      const replayed = await (
        await chatRoute({
          journal,
          model: again.model,
          tools: { refund: refundOnce(`${world.url}/psp`) },
        })(turn(chat))
      ).text();
      expect(textOf(replayed)).toBe('Refunded 40 EUR for o_17.');
      expect(again.calls()).toBe(0);
      expect(world.refunds.get('o_17')).toHaveLength(1);
    } finally {
      await world.close();
    }
  });

  it('the same turn sent again while its invocation still holds the run (right at its end) replays the answer from the stream log, not a busy error', async () => {
    const world = await startOutsideWorld();
    try {
      const chat = uniqueRunId('chat-busy');
      const route = (model: LanguageModelV4) =>
        chatRoute({ journal, model, tools: { refund: refundOnce(`${world.url}/psp`) } });
      const first = streamingModel(script);
      expect(textOf(await (await route(first.model)(turn(chat))).text())).toBe(
        'Refunded 40 EUR for o_17.',
      );
      const runId = `chat:${chat}:m1`;
      const deadline = Date.now() + 10_000;
      while ((await journal.getRun(runId))?.status !== 'completed' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await heldUntilReleased(runId, deadline);
      // The moment between the completion's commit and the invocation's release, held open: the run's hold
      // is taken, as the first invocation still has it then (streamDurable would be refused: RunBusyError).
      const hold = await journal.hold(runId);
      try {
        const again = streamingModel(script);
        const replayed = await (await route(again.model)(turn(chat))).text();
        expect(replayed).not.toContain('"type":"error"');
        expect(textOf(replayed)).toBe('Refunded 40 EUR for o_17.');
        expect(again.calls()).toBe(0);
        expect(world.refunds.get('o_17')).toHaveLength(1);
      } finally {
        await hold.release();
      }
    } finally {
      await world.close();
    }
  });

  it('a client that drops mid-answer reconnects (GET …/stream) and gets the whole answer from its start, once; the refund ran once', async () => {
    const world = await startOutsideWorld();
    try {
      const chat = uniqueRunId('chat-resume');
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const response = await chatRoute({
        journal,
        model: pausingModel(gate),
        tools: { refund: refundOnce(`${world.url}/psp`) },
      })(turn(chat));
      // Read until the answer's first words arrived, then drop the connection, as a reload does.
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let seen = '';
      while (!textOf(seen)) seen += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const resume = resumeRoute({ journal });
      const reconnect = new Request(`http://studio.test/api/chat/${chat}/stream?message=m1`);
      const resumed = resume(reconnect, chat).then((r) => r.text());
      release();
      const body = await resumed;
      expect(textOf(body)).toBe('Refunded 40 EUR for o_17.');
      // One message, from its start: a start chunk first, the tool's output, the whole text.
      expect(body.indexOf('"type":"start"')).toBeLessThan(
        body.indexOf('"type":"tool-output-available"'),
      );
      expect(world.refunds.get('o_17')).toHaveLength(1);
      // After the end, a reconnect replays it; an unknown turn is 204.
      expect(textOf(await (await resume(reconnect, chat)).text())).toBe(
        'Refunded 40 EUR for o_17.',
      );
      expect(
        (await resume(new Request(`http://studio.test/api/chat/${chat}/stream?message=nope`), chat))
          .status,
      ).toBe(204);
    } finally {
      await world.close();
    }
  });

  it('a request that is not a chat turn is refused with 400 and starts nothing', async () => {
    const model = streamingModel(script);
    const refused = await chatRoute({ journal, model: model.model, tools: {} })(
      new Request('http://studio.test/api/chat', { method: 'POST', body: '{"id":""}' }),
    );
    expect(refused.status).toBe(400);
    const notJson = await chatRoute({ journal, model: model.model, tools: {} })(
      new Request('http://studio.test/api/chat', { method: 'POST', body: 'hello' }),
    );
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: 'The request body is not JSON.' });
    expect(model.calls()).toBe(0);
  });
});

/** The scripted model, its answer held at `gate` after its first words (a client can leave mid-answer). */
function pausingModel(gate: Promise<void>) {
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doStream: async (options) => {
      const stepNumber = options.prompt.filter((m) => m.role === 'assistant').length;
      const parts = streamParts(script(stepNumber), stepNumber);
      const firstDelta = parts.findIndex((part) => part.type === 'text-delta');
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const [i, part] of parts.entries()) {
              if (firstDelta >= 0 && i === firstDelta + 1) await gate;
              controller.enqueue(part);
            }
            controller.close();
          },
        }),
      };
    },
  });
}
