import { describe, expect, it } from 'vitest';
import { formatSse, sseResponse } from './sse';

async function readAll(response: Response): Promise<string> {
  return await new Response(response.body).text();
}

describe('server-sent events', () => {
  it('formats one message per event, the id first, JSON on one data line', () => {
    expect(formatSse({ event: 'events', id: 7, data: [{ text: 'a\nb' }] })).toBe('id: 7\nevent: events\ndata: [{"text":"a\\nb"}]\n\n');
  });

  it('answers with headers nothing buffers, says hello, pings, and ends at its lifetime, releasing what it held', async () => {
    let released = 0;
    const response = sseResponse({
      signal: new AbortController().signal,
      heartbeatMs: 20,
      maxMs: 120,
      start: async (channel) => {
        channel.send({ event: 'run', id: 3, data: { ok: true } });
        return () => {
          released += 1;
        };
      },
    });
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await readAll(response);
    expect(text.startsWith('retry: 500\n\nevent: hello\ndata: {"heartbeatMs":20}\n\nid: 3\nevent: run\n')).toBe(true);
    expect(text).toContain('event: ping');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(released).toBe(1);
  });

  it('asks on each heartbeat whether its session is still on: once it is not, says signed-out, ends and releases', async () => {
    let released = 0;
    let checks = 0;
    const response = sseResponse({
      signal: new AbortController().signal,
      heartbeatMs: 20,
      maxMs: 60_000,
      stillAuthorized: async () => {
        checks += 1;
        return checks < 3;
      },
      start: async () => () => {
        released += 1;
      },
    });
    const text = await readAll(response);
    expect(checks).toBe(3);
    expect(text.match(/event: ping/g)).toHaveLength(2);
    expect(text.endsWith('event: signed-out\ndata: {"message":"Your session has ended: sign in again."}\n\n')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(released).toBe(1);

    // A check that fails ends the stream too (fail closed), and is reported.
    const errors: unknown[] = [];
    const failing = sseResponse({
      signal: new AbortController().signal,
      heartbeatMs: 20,
      maxMs: 60_000,
      stillAuthorized: async () => {
        throw new Error('journal down');
      },
      start: async () => () => undefined,
      onError: (error) => errors.push(error),
    });
    expect(await readAll(failing)).not.toContain('event: ping');
    expect(String(errors[0])).toMatch(/journal down/);
  });

  it('releases on the browser going away, and ends the stream when start fails', async () => {
    const controller = new AbortController();
    let released = 0;
    const response = sseResponse({
      signal: controller.signal,
      start: async () => () => {
        released += 1;
      },
    });
    const reading = readAll(response);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await reading;
    expect(released).toBe(1);

    const errors: unknown[] = [];
    const failed = sseResponse({
      signal: new AbortController().signal,
      start: async () => {
        throw new Error('journal down');
      },
      onError: (error) => errors.push(error),
    });
    expect(await readAll(failed)).toContain('event: hello');
    expect(String(errors[0])).toMatch(/journal down/);
  });
});
