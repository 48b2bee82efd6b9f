/**
 * Cutting big values out of an event and putting them back (payload-blobs.ts), on the encoded trees
 * json-codec writes: what is resolved is exactly what was encoded, a user's own `$gnl` keys are never
 * read as references, and a body never names another body.
 */
import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson } from '../internal';
import { BLOB_THRESHOLD_BYTES, type Blob, refsIn, resolveRefs, splitEvent, withBlobPlaceholders } from './payload-blobs';

const over = (char = 'x') => char.repeat(BLOB_THRESHOLD_BYTES + 1);

function split(type: string, value: object) {
  const payload = encodeJson(value);
  const json = JSON.stringify({ type, payload });
  return { payload, whole: json, ...splitEvent({ type, payload, json, bytes: Buffer.byteLength(json) }) };
}

function resolve(json: string, blobs: Blob[]) {
  const bodies = new Map(blobs.map((blob) => [blob.hash, JSON.parse(blob.json)]));
  return resolveRefs(JSON.parse(json).payload, bodies, (hash) => {
    throw new Error(`missing ${hash}`);
  });
}

describe('payload blobs', () => {
  it('an event under the threshold is kept as it is, the same text', () => {
    const event = split('tool-call-end', { output: 'y'.repeat(BLOB_THRESHOLD_BYTES - 100) });
    expect(event.blobs).toEqual([]);
    expect(event.json).toBe(event.whole);
  });

  it('big strings and bytes are cut out, each once per hash; resolving gives back exactly what was encoded', () => {
    const text = over('é');
    const value = { toolName: 'fetch', output: { text, again: text, bytes: new Uint8Array(100_000).fill(3) } };
    const event = split('tool-call-end', value);
    expect(new Set(event.blobs.map((blob) => blob.hash)).size).toBe(2);
    expect(Buffer.byteLength(event.json)).toBeLessThan(1000);
    expect(JSON.parse(event.json).payload.toolName).toBe('fetch');
    expect(resolve(event.json, event.blobs)).toEqual(event.payload);
    expect(decodeJson(resolve(event.json, event.blobs))).toEqual(value);
  });

  it("a user's object shaped like a reference is never read as one, and its big values are still cut out", () => {
    const value = { output: { $gnl: 'blob', h: 'f'.repeat(64), n: 3, big: over() } };
    const event = split('tool-call-end', value);
    expect(event.blobs).toHaveLength(1);
    expect(refsIn(JSON.parse(event.json).payload)).toEqual([event.blobs[0]?.hash]);
    expect(decodeJson(resolve(event.json, event.blobs))).toEqual(value);
  });

  it('many values each under the threshold are cut out together; no body names another', () => {
    const pages = Array.from({ length: 40 }, (_, i) => `${i}`.repeat(4000));
    const value = { output: { pages, cover: over() } };
    const event = split('tool-call-end', value);
    // The 40 pages as one body, the cover as another.
    expect(event.blobs.map((blob) => blob.bytes).sort((a, b) => a - b)).toEqual([BLOB_THRESHOLD_BYTES + 3, JSON.stringify(pages).length]);
    for (const blob of event.blobs) expect(refsIn(JSON.parse(blob.json))).toEqual([]);
    expect(decodeJson(resolve(event.json, event.blobs))).toEqual(value);
  });

  it('a model step keeps its usage in the row (the Studio sums it in SQL) however big its content', () => {
    const value = {
      step: 0,
      result: { content: Array.from({ length: 40 }, () => ({ type: 'text', text: 'w'.repeat(4000) })), usage: { inputTokens: { total: 7 } } },
    };
    const event = split('model-step', value);
    expect(event.blobs).toHaveLength(1);
    expect(JSON.parse(event.json).payload.result.usage).toEqual({ inputTokens: { total: 7 } });
    expect(decodeJson(resolve(event.json, event.blobs))).toEqual(value);
  });

  it("a run-start keeps its input in the row (the run row copies it, listings read input->>'agent')", () => {
    const value = { input: { agent: 'support', messages: Array.from({ length: 40 }, () => ({ role: 'user', content: 'z'.repeat(4000) })) } };
    const event = split('run-start', value);
    expect(JSON.parse(event.json).payload.input.agent).toBe('support');
    expect(decodeJson(resolve(event.json, event.blobs))).toEqual(value);
  });

  it('placeholders replace a tagged value (bytes) or a sealed envelope whole, never inside it', () => {
    const stored = JSON.parse(split('run-start', { input: { image: new Uint8Array(200_000), note: over() } }).json).payload;
    expect(withBlobPlaceholders(stored)).toEqual({
      input: { image: expect.stringMatching(/^\[260 KiB stored apart, sha256 [0-9a-f]{12}…\]$/), note: expect.stringMatching(/^\[64 KiB stored apart/) },
    });
    const sealed = { '$gnl:enc': { $gnl: 'blob', h: 'a'.repeat(64), n: 300_000 } };
    expect(withBlobPlaceholders({ apiKey: sealed })).toEqual({ apiKey: `[293 KiB stored apart, sha256 ${'a'.repeat(12)}…]` });
  });
});
