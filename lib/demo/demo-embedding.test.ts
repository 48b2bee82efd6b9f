/**
 * The demo's embedding models (demo-embedding.ts). The provider path is the real @ai-sdk/openai client
 * against a local fake of OpenAI's embeddings API, which counts what it was asked and can answer 429 or
 * a shape that is not OpenAI's: recall retries a 429 and records what it found; a resumed run asks the
 * provider nothing again; an odd answer stops the start with the provider's error and writes nothing,
 * and the same start works once the provider answers right. Without a key, the local words model.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDurable, unitVector } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { demoEmbeddingInfo, demoEmbeddingModel, WordsEmbeddingModel, wordsVector } from './demo-embedding';

type Mode = 'ok' | 'busy-once' | 'odd';
let mode: Mode = 'ok';
const asked: { model: string; input: string[] }[] = [];
let server: Server;
let baseURL: string;
const storage = new PGliteStorage({ dataDir: tempDataDir() });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url !== '/v1/embeddings' || req.headers.authorization !== 'Bearer sk-fake') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as { model: string; input: string[] };
      asked.push(request);
      if (mode === 'busy-once') {
        mode = 'ok';
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '10' });
        res.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit_exceeded' } }));
        return;
      }
      if (mode === 'odd') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: [{ vector: 'not an embedding' }] }));
        return;
      }
      const data = request.input.map((text, index) => ({ object: 'embedding', index, embedding: wordsVector(text) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: request.model, usage: { prompt_tokens: 5, total_tokens: 5 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  await storage.database();
}, 120_000);

afterAll(async () => {
  await storage.close();
  await new Promise((resolve) => server.close(resolve));
});

it('without an OpenAI key: the local words model, deterministic, shared words making similar vectors', async () => {
  expect(demoEmbeddingInfo({})).toEqual({ kind: 'words', provider: 'gnl-demo', modelId: 'words-256', reason: 'OPENAI_API_KEY is not set' });
  const model = demoEmbeddingModel({});
  expect(model).toBeInstanceOf(WordsEmbeddingModel);
  const { embeddings } = await model.doEmbed({ values: ['blue lamp broken', 'the blue lamp is broken', 'invoice address'] });
  const [a, b, c] = embeddings.map((e) => unitVector(e)) as [number[], number[], number[]];
  const cosine = (x: number[], y: number[]) => x.reduce((sum, v, i) => sum + v * (y[i] ?? 0), 0);
  expect(cosine(a, b)).toBeGreaterThan(0.7);
  expect(cosine(a, c)).toBeLessThan(0.2);
  expect((await model.doEmbed({ values: ['blue lamp broken'] })).embeddings[0]).toEqual(embeddings[0]);
});

it('with a key: recall through the provider, a 429 retried; a resume asks it nothing; an odd answer writes nothing and a later start works', async () => {
  const env = { OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: baseURL, GNL_EMBEDDING_MODEL: 'text-embedding-3-small' };
  expect(demoEmbeddingInfo(env)).toEqual({ kind: 'provider', provider: 'openai', modelId: 'text-embedding-3-small' });
  const embeddingModel = demoEmbeddingModel(env);
  const resource = uniqueRunId('customer');
  const fact = 'the blue lamp of order o_17 arrived broken';
  await storage.memory.add({ resource, key: `${resource}-fact`, items: [{ kind: 'fact', text: fact, embedding: unitVector(wordsVector(fact)) }] });
  const memory = { store: storage.memory, resource, thread: 'conv-1', recall: { embeddingModel, topK: 1 } };
  const model = scriptedModel(() => ({ text: 'The lamp is on its way.' }));

  // An answer that is not OpenAI's: the start fails with the provider's error, and nothing of the run is written.
  mode = 'odd';
  const runId = uniqueRunId('provider-recall');
  const call = () => runDurable({ runId, journal: storage.runs, model: model.model, prompt: 'Is the blue lamp broken?', memory });
  await expect(call()).rejects.toThrow();
  expect(await storage.runs.getRun(runId)).toBeUndefined();

  // The provider is busy once (429), then answers: recall retries and records what it found, with its score.
  mode = 'busy-once';
  asked.length = 0;
  expect((await call()).status).toBe('completed');
  expect(asked.map((a) => a.input)).toEqual([
    ['Is the blue lamp broken?'],
    ['Is the blue lamp broken?'],
    ['Is the blue lamp broken?', 'The lamp is on its way.'],
  ]);
  expect(asked.every((a) => a.model === 'text-embedding-3-small')).toBe(true);
  const recorded = (await storage.runs.getRun(runId))?.input.memory;
  expect(recorded?.recalled).toEqual([expect.objectContaining({ kind: 'fact', score: expect.any(Number) })]);
  expect(JSON.stringify(recorded?.messages)).toContain(fact);

  // Called again: answered from the record; the provider is asked nothing.
  expect((await call()).status).toBe('completed');
  expect(asked).toHaveLength(3);
});
