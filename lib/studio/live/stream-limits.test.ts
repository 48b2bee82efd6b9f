/** Live streams are bounded per operator and in all (stream-limits.ts): past a bound a new one is 429 with a reason; an ended one gives its place back. */
import { afterEach, describe, expect, it } from 'vitest';
import { sseResponse } from './sse';
import { openStreams, takeStreamPlace } from './stream-limits';

const opened: AbortController[] = [];
afterEach(() => {
  for (const controller of opened.splice(0)) controller.abort();
});

function open(holder: string): Response {
  const controller = new AbortController();
  opened.push(controller);
  return sseResponse({ signal: controller.signal, holder, heartbeatMs: 60_000, start: async () => () => {} });
}

describe('live stream bounds', () => {
  it('per operator: the third of two allowed is refused with 429 and a reason; closing one lets the next in; others are not counted against it', async () => {
    process.env.GNL_STUDIO_MAX_STREAMS_PER_OPERATOR = '2';
    try {
      expect(open('op-a').status).toBe(200);
      expect(open('op-a').status).toBe(200);
      const refused = open('op-a');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(((await refused.json()) as { error: string }).error).toMatch(/You have 2 live streams open \(the limit is 2\)/);
      expect(open('op-b').status).toBe(200);
      (opened[0] as AbortController).abort();
      expect(openStreams().byHolder.get('op-a')).toBe(1);
      expect(open('op-a').status).toBe(200);
    } finally {
      delete process.env.GNL_STUDIO_MAX_STREAMS_PER_OPERATOR;
    }
  });

  it('in all: past the process-wide bound every operator is refused; a place is given back once', () => {
    const env = { GNL_STUDIO_MAX_STREAMS: '3' };
    const places = ['x', 'y', 'z'].map((holder) => takeStreamPlace(holder, env));
    expect(places.every((p) => 'release' in p)).toBe(true);
    expect(takeStreamPlace('w', env)).toMatchObject({ refused: expect.stringMatching(/This Studio has 3 live streams open/) });
    const first = places[0] as { release(): void };
    first.release();
    first.release();
    expect(openStreams().total).toBe(2);
    for (const place of places.slice(1)) (place as { release(): void }).release();
    expect(openStreams().total).toBe(0);
  });
});
