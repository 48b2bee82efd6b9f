import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@/lib/durable';
import { clean, cut, json, redactedJson, shellQuote } from './format';
import { timelineLines } from './timeline';

const at = (iso: string) => new Date(iso);

describe('the timeline as text', () => {
  it('shows bytes (an image part) as their size and digest, never as an object of index keys, and cleans only what it shows of a long value', () => {
    const image = new Uint8Array(10 * 1024 * 1024).fill(7);
    const part = { type: 'file', mediaType: 'image/png', data: image };
    const line = json(part, 240);
    expect(line).toMatch(/^\{"type":"file","mediaType":"image\/png","data":"\[10,485,760 bytes, sha256 [0-9a-f]{16}…\]"\}$/);
    expect(redactedJson({ data: Buffer.from([1, 2, 3]) })).toMatch(/"data":"\[3 bytes, sha256 [0-9a-f]{16}…\]"/);
    expect(redactedJson({ data: new Uint8Array([1, 2, 3]).buffer })).toMatch(/"\[3 bytes, sha256/);
    const long = json({ data: `\u001b${'A'.repeat(5_000_000)}` }, 240);
    expect(long.startsWith('{"data":"\\u001b')).toBe(true);
    expect(long).toMatch(/… \(\d+ more characters; --full shows all\)$/);
    expect(long.length).toBeLessThan(300);
  });

  it('never lets a payload drive the terminal: escape sequences, controls and bidi overrides are shown as escapes', () => {
    expect(clean('ok\u001b[2J\u009b31m\u202eevil\r\nnext')).toBe('ok\\u001b[2J\\u009b31m\\u202eevil\\u000d\\nnext');
    const lines = timelineLines(
      [
        {
          type: 'model-step',
          seq: 3,
          at: at('2026-11-29T21:32:46.312Z'),
          step: 0,
          provider: 'p',
          modelId: 'm',
          latencyMs: 12.34,
          result: {
            content: [
              { type: 'text', text: 'Done.\u001b]8;;http://evil\u0007click\u001b]8;;\u0007' },
              { type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: '{"amount":40}' },
            ],
            usage: { inputTokens: { total: 10, cacheRead: 4 }, outputTokens: { total: 5, reasoning: 2 } },
            finishReason: { unified: 'tool-calls' },
          },
        },
      ] as RecordedEvent[],
      240,
    );
    const controls = [...lines.join('')].filter((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f));
    expect(controls).toEqual([]);
    expect(lines).toEqual([
      '-- 2026-11-29 (UTC) --',
      '     3  21:32:46.312  model-step              step 1 · tokens 10 in, 5 out (4 cached, 2 reasoning) · 12.3 ms · finish tool-calls',
      `${' '.repeat(46)}text: "Done.\\u001b]8;;http://evil\\u0007click\\u001b]8;;\\u0007"`,
      `${' '.repeat(46)}tool call refund (c1) {"amount":40}`,
    ]);
  });

  it('names a decided call by the tool its request named, prints the day when it changes, and cuts long values unless asked not to', () => {
    const events = [
      {
        type: 'tool-approval-request',
        seq: 1,
        at: at('2026-11-29T23:59:59.000Z'),
        toolCallId: 'c1',
        toolName: 'issueRefund',
        input: { note: 'x'.repeat(50) },
        requestedAt: '',
      },
      { type: 'tool-approval-response', seq: 2, at: at('2026-11-30T00:00:01.000Z'), toolCallId: 'c1', approved: false, by: 'alice', reason: 'no' },
    ] as RecordedEvent[];
    const lines = timelineLines(events, 20);
    expect(lines[0]).toBe('-- 2026-11-29 (UTC) --');
    expect(lines[2]?.trim()).toBe('args: {"note":"xxxxxxxxxxx… (41 more characters; --full shows all)');
    expect(lines[3]).toBe('-- 2026-11-30 (UTC) --');
    expect(lines[4]).toMatch(/^\s+2 {2}00:00:01\.000 {2}tool-approval-response {2}rejected issueRefund \(c1\) by alice$/);
    expect(timelineLines(events, undefined)[2]).toContain(`"note":"${'x'.repeat(50)}"`);
  });

  it('says who asked for a resume and why, the reason escaped and cut like any operator text', () => {
    const events = [
      { type: 'run-resume-request', seq: 7, at: at('2026-11-30T08:00:00.000Z'), by: 'alice@example.com', reason: 'after approving issueRefund (call-2)' },
      { type: 'run-resume-request', seq: 8, at: at('2026-11-30T08:00:01.000Z'), by: 'bob\u001b[2J', reason: `PSP is back\n${'x'.repeat(40)}` },
      { type: 'run-resume-request', seq: 9, at: at('2026-11-30T08:00:02.000Z'), by: 'carol' },
    ] as RecordedEvent[];
    const lines = timelineLines(events, 20);
    expect(lines[1]).toMatch(
      /^\s+7 {2}08:00:00\.000 {2}run-resume-request {6}resume requested by alice@example\.com: after approving issu… \(16 more characters; --full shows all\)$/,
    );
    expect(lines[2]).toContain('resume requested by bob\\u001b[2J: PSP is back\\nxxxxxxx… (33 more characters');
    expect(lines[3]).toMatch(/run-resume-request {6}resume requested by carol$/);
    expect(timelineLines(events.slice(0, 1), undefined)[1]).toContain('resume requested by alice@example.com: after approving issueRefund (call-2)');
  });

  it('shows token counts of the v7 shape and of plain numbers, and a dash when a step reports none', () => {
    const step = (n: number, result: unknown) =>
      ({ type: 'model-step', seq: n, at: at('2026-11-29T21:32:46.312Z'), step: n, provider: 'p', modelId: 'm', latencyMs: 1, result }) as RecordedEvent;
    const lines = timelineLines(
      [
        step(1, { usage: { inputTokens: { total: 7 }, outputTokens: { total: 3 } } }),
        step(2, { usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2 } }),
        step(3, {}),
      ],
      undefined,
    );
    expect(lines.slice(1).map((line) => line.split(' · ')[1])).toEqual(['tokens 7 in, 3 out', 'tokens 7 in, 3 out (2 cached)', 'tokens -']);
  });

  it('quotes suggested commands for the shell only when needed', () => {
    expect(shellQuote('support:1b2c-3')).toBe('support:1b2c-3');
    expect(shellQuote("it's a run")).toBe(`'it'\\''s a run'`);
    expect(cut('abcdef', 3)).toBe('abc… (3 more characters; --full shows all)');
  });
});
