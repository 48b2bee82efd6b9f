/**
 * Span export from a real worker process (npm run worker) to a real OTLP/HTTP receiver: with
 * OTEL_EXPORTER_OTLP_ENDPOINT set, the worker sends GNL's spans (the invocation, its model steps and
 * tool calls, one trace) under OTEL_SERVICE_NAME; the last batch goes out at SIGTERM. Without the
 * variable nothing is exported (startTraceExport answers undefined), and a malformed one is refused.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAgentRegistry } from '@/lib/agents';
import { supportAgent } from '@/agents/support';
import { startRun } from '../index';
import { DATABASE_URL } from '@/tests/support/journals';
import { workerWorld } from '@/tests/support/worker-world';
import { startWorker } from '@/tests/support/worker-process';
import { startTraceExport } from './trace-export';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: OtlpValue }[] };
type OtlpBody = { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };

/** A collector's OTLP/HTTP JSON endpoint: every span it receives, with its service name. */
async function otlpReceiver(): Promise<{ url: string; spans: (OtlpSpan & { service: string })[]; requests: number; close(): Promise<void> }> {
  const received = { spans: [] as (OtlpSpan & { service: string })[], requests: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.requests += 1;
      if (request.url !== '/v1/traces' || !String(request.headers['content-type']).includes('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const parsed = JSON.parse(body) as OtlpBody;
      for (const resource of parsed.resourceSpans) {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const scope of resource.scopeSpans) for (const span of scope.spans) received.spans.push({ ...span, service });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get spans() {
      return received.spans;
    },
    get requests() {
      return received.requests;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value.stringValue;

describe('startTraceExport', () => {
  it('exports nothing without an endpoint or with OTEL_TRACES_EXPORTER=none; refuses an endpoint that is not a URL', () => {
    expect(startTraceExport('gnl-test', {})).toBeUndefined();
    expect(startTraceExport('gnl-test', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(() => startTraceExport('gnl-test', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/must be a URL/);
    expect(() => startTraceExport('gnl-test', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_BSP_SCHEDULE_DELAY: 'soon' })).toThrow(
      /OTEL_BSP_SCHEDULE_DELAY/,
    );
  });
});

const suite = DATABASE_URL ? describe : describe.skip;

suite(`a worker exports its spans over OTLP${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const world = workerWorld();

  it("a run's invocation, model steps and tool calls reach the collector as one trace, under the service's name", async () => {
    const receiver = await otlpReceiver();
    try {
      const worker = startWorker({
        databaseUrl: world.databaseUrl,
        serviceUrl: world.service.url,
        pollMs: 50,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gnl-worker-under-test', OTEL_BSP_SCHEDULE_DELAY: '200' },
      });
      world.workers.push(worker);
      expect(await worker.waitFor((line) => line.type === 'traces')).toMatchObject({
        endpoint: `${receiver.url}/v1/traces`,
        serviceName: 'gnl-worker-under-test',
      });
      await worker.waitFor((line) => line.type === 'started');
      const registry = createAgentRegistry([supportAgent({ serviceUrl: world.service.url })]);
      const { runId } = await startRun({
        storage: world.storage,
        registry,
        agent: 'support',
        runId: `support:${randomUUID()}`,
        input: { prompt: 'Customer c_42 wants a refund of 40 for order o_17' },
      });
      await worker.waitFor((line) => line.type === 'finished' && line.runId === runId, 90_000);
      worker.signal('SIGTERM'); // the last batch goes out at shutdown
      expect((await worker.exited).code).toBe(0);

      const ofRun = receiver.spans.filter((span) => attribute(span, 'gnl.run_id') === runId);
      const invocation = ofRun.find((span) => span.name === 'gnl.invocation');
      expect(invocation, `spans received: ${receiver.spans.map((s) => s.name).join(', ')}`).toBeDefined();
      expect(invocation?.service).toBe('gnl-worker-under-test');
      const names = new Set(receiver.spans.filter((span) => span.traceId === invocation?.traceId).map((span) => span.name));
      expect(names).toContain('gnl.model_step');
      expect(names).toContain('gnl.tool_call');
      // Children of the invocation: one trace, linked by parent.
      const steps = receiver.spans.filter((span) => span.name === 'gnl.model_step' && span.traceId === invocation?.traceId);
      expect(steps.every((span) => span.parentSpanId === invocation?.spanId)).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
