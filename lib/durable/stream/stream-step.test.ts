/**
 * The streamed step's hold, part by part: text deltas pass at once, a tool call comes out only after the
 * step was recorded (whatever the SDK would do with it earlier), a stream that fails before its finish
 * lets no call out and records nothing, and repeated call ids are renamed in the input parts and the
 * call alike. No database: `record` is the journal's append, stood in for by a promise the test settles.
 */
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { streamParts } from '@/tests/support/scripted-model';
import { CallIdRenamer, recordingStepStream, streamOfRecordedStep } from './stream-step';

type Part = LanguageModelV4StreamPart;

function source(parts: Part[], failBeforeFinish = false): ReadableStream<Part> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const part = parts[i++];
      if (failBeforeFinish && part?.type === 'finish') controller.error(new Error('reset'));
      else if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

describe('a streamed step is recorded before its calls come out', () => {
  it('text passes at once; the call waits for the record, then comes out before the finish', async () => {
    const parts = [
      ...streamParts({ text: 'Checking.' }).slice(0, -1),
      ...streamParts({ toolCalls: [{ toolCallId: 'c1', toolName: 'refund', input: { a: 1 } }] }).slice(2),
    ];
    let release: () => void = () => {};
    const recorded: LanguageModelV4GenerateResult[] = [];
    const stream = recordingStepStream({
      stream: source(parts),
      renamer: new CallIdRenamer(0, new Set()),
      record: (result) => {
        recorded.push(result);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    const reader = stream.getReader();
    const seen: string[] = [];
    let part = await reader.read();
    while (!part.done && part.value.type !== 'tool-input-end') {
      seen.push(part.value.type);
      part = await reader.read();
    }
    expect(seen).toContain('text-delta');
    // The next part is the held call: it does not come until the record resolves.
    const next = reader.read();
    const early = await Promise.race([next.then(() => 'came'), new Promise((r) => setTimeout(() => r('held'), 100))]);
    expect(early).toBe('held');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.content.map((c) => c.type)).toEqual(['text', 'tool-call']);
    release();
    expect((await next).value?.type).toBe('tool-call');
    expect((await reader.read()).value?.type).toBe('finish');
  });

  it('a stream that fails before its finish records nothing and lets no call out', async () => {
    const parts = streamParts({ toolCalls: [{ toolCallId: 'c1', toolName: 'refund', input: {} }] });
    const recorded: unknown[] = [];
    const stream = recordingStepStream({ stream: source(parts, true), renamer: new CallIdRenamer(0, new Set()), record: async (r) => void recorded.push(r) });
    const types: string[] = [];
    await expect(
      (async () => {
        for await (const part of stream as unknown as AsyncIterable<Part>) types.push(part.type);
      })(),
    ).rejects.toThrow('reset');
    expect(types).not.toContain('tool-call');
    expect(recorded).toEqual([]);
  });

  it('an id used before is renamed in its input parts and its call; the record replays as the same stream of parts', async () => {
    const parts = streamParts({ toolCalls: [{ toolCallId: 'call_0', toolName: 'refund', input: {} }] }, 1);
    let result: LanguageModelV4GenerateResult | undefined;
    const stream = recordingStepStream({
      stream: source(parts),
      renamer: new CallIdRenamer(1, new Set(['call_0'])),
      record: async (r) => {
        result = r;
      },
    });
    const out: Part[] = [];
    for await (const part of stream as unknown as AsyncIterable<Part>) out.push(part);
    const ids = out.flatMap((p) => ('toolCallId' in p ? [p.toolCallId] : p.type.startsWith('tool-input') ? [(p as { id: string }).id] : []));
    expect(new Set(ids)).toEqual(new Set(['call_0~s1.1']));
    const replayed: Part[] = [];
    for await (const part of streamOfRecordedStep(result as LanguageModelV4GenerateResult) as unknown as AsyncIterable<Part>) replayed.push(part);
    expect(replayed.filter((p) => p.type === 'tool-call')).toEqual(out.filter((p) => p.type === 'tool-call'));
  });
});
