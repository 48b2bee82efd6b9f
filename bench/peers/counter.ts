/**
 * The execution counter outside the process under test: a tiny HTTP server in the benchmark process.
 * POST /count/<key> counts one execution and answers the new count; GET /count/<key> reads it.
 */
import http from 'node:http';
import { z } from 'zod';

const CountAnswer = z.object({ key: z.string(), count: z.number().int().nonnegative() });

export class ExecutionCounter {
  private readonly counts = new Map<string, number>();
  private readonly server = http.createServer((req, res) => {
    const key = decodeURIComponent((req.url ?? '').replace(/^\/count\//, ''));
    if (req.method === 'POST') this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ key, count: this.counts.get(key) ?? 0 }));
  });

  static async start(): Promise<ExecutionCounter> {
    const counter = new ExecutionCounter();
    await new Promise<void>((resolve, reject) => {
      counter.server.once('error', reject);
      counter.server.listen(0, '127.0.0.1', () => resolve());
    });
    return counter;
  }

  get url(): string {
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Counts one execution of `key` at the counter (from the process under test); resolves once counted. */
export async function countExecution(counterUrl: string, key: string): Promise<number> {
  let response: Response;
  try {
    response = await fetch(`${counterUrl}/count/${encodeURIComponent(key)}`, { method: 'POST' });
  } catch (error) {
    throw new Error(`counter at ${counterUrl} did not answer`, { cause: error });
  }
  return CountAnswer.parse(await response.json()).count;
}
