/**
 * Health (issue 18): up while the journal answers, down (503) when it does not, and nothing else in the
 * answer. On both journals; the worker's --health-port is a real worker process on Postgres.
 */
import { expect, it } from 'vitest';
import { PostgresStorage } from '@/lib/durable/storage';
import { DATABASE_URL, describeEachJournal } from '@/tests/support/journals';
import { WorkerProcess } from '@/tests/support/worker-process';
import { checkHealth, healthStatusCode, serveHealth } from './health';

describeEachJournal('health', (target) => {
  const { storage } = target.open();

  it('is up, the journal reachable, and says nothing more; GET /health serves it, anything else is 404', async () => {
    const health = await checkHealth(storage);
    expect(health).toEqual({ status: 'up', journal: 'reachable' });
    expect(healthStatusCode(health)).toBe(200);
    const served = await serveHealth(storage, { port: 0 });
    try {
      const res = await fetch(served.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ status: 'up', journal: 'reachable' });
      expect((await fetch(served.url.replace('/health', '/metrics'))).status).toBe(404);
      expect((await fetch(served.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await served.close();
    }
  });
});

it('is down (503) when the journal does not answer: a Postgres on a port nobody listens on, within the timeout', async () => {
  const unreachable = new PostgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:9/test' });
  try {
    const causes: Error[] = [];
    const health = await checkHealth(unreachable, { timeoutMs: 3_000, onDown: (cause) => causes.push(cause) });
    expect(health).toEqual({ status: 'down', journal: 'unreachable' });
    expect(healthStatusCode(health)).toBe(503);
    // The answer says nothing more; why is the server's to log, the driver's error kept as the cause.
    expect(causes).toHaveLength(1);
    expect(causes[0]?.message).toMatch(/^the journal did not answer: /);
    expect(causes[0]?.cause).toBeInstanceOf(Error);
    // The default logs a cause once, not once per probe.
    const logged: string[] = [];
    const error = console.error;
    console.error = (line: string) => logged.push(line);
    try {
      for (let i = 0; i < 3; i++) await checkHealth(unreachable, { timeoutMs: 3_000 });
    } finally {
      console.error = error;
    }
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^gnl health: down: the journal did not answer: /);
  } finally {
    await unreachable.close().catch(() => undefined);
  }
});

it.runIf(DATABASE_URL)('a worker started with --health-port 0 serves GET /health on the port its `health` line names', async () => {
  const worker = new WorkerProcess({ databaseUrl: DATABASE_URL, serviceUrl: 'http://127.0.0.1:9', healthPort: 0, pollMs: 200 });
  try {
    const line = await worker.waitFor((l) => l.type === 'health');
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/health$/);
    const res = await fetch(line.url as string);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'up', journal: 'reachable' });
    // The same port serves Prometheus's exposition.
    const metrics = await fetch((line.url as string).replace('/health', '/metrics'));
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/^# HELP gnl_runs Runs by status\.$/m);
    expect(text).toContain('# TYPE gnl_invocations_total counter');
    expect(text).toContain('gnl_process_cpu_user_seconds_total');
  } finally {
    await worker.end();
  }
});
