/**
 * Vercel Workflow 4.8 (@workflow/core 4.8.9, @workflow/world-postgres 4.3.7), run in plain Node without
 * its compiler: the workflow bundle is systems/workflow-bundle-entry.ts bundled by esbuild (what the SWC
 * plugin and builders would emit), the steps are registered with registerStepFunction, and an HTTP
 * server on this process answers the Postgres world's queue deliveries (flow and step routes).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { registerStepFunction } from '@workflow/core/private';
import { getRun, setWorld, start, stepEntrypoint, workflowEntrypoint } from '@workflow/core/runtime';
import { createWorld } from '@workflow/world-postgres';
import { build } from 'esbuild';
import postgres from 'postgres';
import { type AgentAnswer, checkAnswer, type Effect, PROMPT, scriptedModel } from '../agent';
import type { DurableSystem, SystemOptions } from '../system';
import { MODEL_STEP, RECORD_STEP, STEPS_WORKFLOW_ID, TOOL_STEP, WORKFLOW_ID } from './workflow-bundle-entry';

async function workflowBundle(): Promise<string> {
  const out = await build({
    entryPoints: [path.join(import.meta.dirname, 'workflow-bundle-entry.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    logLevel: 'silent',
    // The VM has no Node built-ins: the AI SDK's gateway provider (unused here) reaches for them through @vercel/oidc.
    plugins: [
      {
        name: 'no-node-builtins',
        setup(b) {
          b.onResolve({ filter: /^((node:)?(fs|path|os|crypto|url|util|stream|events|child_process)|@vercel\/oidc)$/ }, (a) => ({
            path: a.path,
            namespace: 'stub',
          }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents: `module.exports = new Proxy({}, { get: (_, key) => (key === '__esModule' ? false : () => { throw new Error('not in the workflow VM'); }) });`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  return out.outputFiles[0]?.text ?? '';
}

async function toRequest(req: http.IncomingMessage, port: number): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  return new Request(`http://localhost:${port}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
}

/** The Postgres world's own setup (its drizzle migrations and graphile-worker's schema), as its bin does it. */
async function setupDatabase(url: string): Promise<void> {
  const bin = path.join(import.meta.dirname, '..', 'node_modules', '@workflow', 'world-postgres', 'bin', 'setup.js');
  try {
    await promisify(execFile)(process.execPath, [bin], { env: { ...process.env, WORKFLOW_POSTGRES_URL: url } });
  } catch (error) {
    throw new Error('Vercel Workflow: the Postgres world setup failed', { cause: error });
  }
}

let effect: Effect | undefined;

export class WorkflowSystem implements DurableSystem {
  readonly name = 'Vercel Workflow 4.8';
  private world!: ReturnType<typeof createWorld>;
  private server!: http.Server;
  private watcher!: postgres.Sql;

  static async start(options: SystemOptions & { watchUrl?: string }): Promise<WorkflowSystem> {
    effect = options.effect;
    const system = new WorkflowSystem();
    const model = scriptedModel();
    registerStepFunction(MODEL_STEP, async (prompt: any) => model.doGenerate({ prompt } as any) as any);
    registerStepFunction(TOOL_STEP, async (input: any) => {
      await effect?.(input.amount);
      return { recorded: input.item };
    });
    registerStepFunction(RECORD_STEP, async (n: any) => ({ recorded: `item-${n}` }));
    const flow = workflowEntrypoint(await workflowBundle());
    system.server = http.createServer(async (req, res) => {
      try {
        const request = await toRequest(req, port());
        const handler = req.url?.includes('/flow') ? flow : (stepEntrypoint as (r: Request) => Promise<Response>);
        const response = await handler(request);
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      } catch (error) {
        res.writeHead(500);
        res.end(String(error));
      }
    });
    await new Promise<void>((resolve) => system.server.listen(0, '127.0.0.1', () => resolve()));
    const port = () => (system.server.address() as { port: number }).port;
    process.env.PORT = String(port());
    // Setup is not the system's per-run work: straight to Postgres, not through the counting proxy.
    await setupDatabase(options.watchUrl ?? options.url);
    system.watcher = postgres(options.watchUrl ?? options.url, { max: 1, onnotice: () => {} });
    system.world = createWorld({ connectionString: options.url, queueConcurrency: 10 });
    setWorld(system.world as any);
    await (system.world as any).start?.();
    return system;
  }

  async run(runId: string): Promise<AgentAnswer> {
    const fn = Object.assign(async () => {}, { workflowId: WORKFLOW_ID });
    const run = await start(fn as any, [PROMPT]);
    this.ids.set(runId, run.runId);
    return this.result(runId);
  }

  private readonly ids = new Map<string, string>();

  /** The 20-step workflow (workflow-steps.ts): started, awaited to its end, its return value (the steps that recorded). */
  async runSteps(): Promise<number> {
    const fn = Object.assign(async () => {}, { workflowId: STEPS_WORKFLOW_ID });
    const run = await start(fn as any, []);
    const id = run.runId;
    for (;;) {
      const [row] = await this.watcher<{ status: string }[]>`select status from workflow.workflow_runs where id = ${id}`;
      if (row?.status === 'completed') return (await getRun(id).returnValue) as number;
      if (row?.status === 'failed' || row?.status === 'cancelled') throw new Error(`${this.name}: steps run ${id} ${row.status}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** For a completed run: getRun(id).returnValue. */
  async answer(runId: string): Promise<AgentAnswer> {
    return checkAnswer(this.name, (await getRun(this.ids.get(runId) ?? runId).returnValue) as AgentAnswer);
  }

  /**
   * Waits for the run's end on a connection of the benchmark's own (not through the system's counting
   * proxy: the watching is the benchmark's, not Workflow's), then reads the answer the documented way.
   */
  async result(runId: string): Promise<AgentAnswer> {
    const id = this.ids.get(runId) ?? runId;
    for (;;) {
      const [row] = await this.watcher<{ status: string }[]>`select status from workflow.workflow_runs where id = ${id}`;
      if (row?.status === 'completed') return this.answer(runId);
      if (row?.status === 'failed' || row?.status === 'cancelled') throw new Error(`${this.name}: run ${id} ${row.status}`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** After a crash: the run this process's world re-enqueued at start (the one not ended), awaited to its end. */
  async recoveredResult(): Promise<AgentAnswer> {
    const [row] = await this.watcher<{ id: string }[]>`select id from workflow.workflow_runs order by created_at desc limit 1`;
    if (!row) throw new Error(`${this.name}: no run to recover`);
    return this.result(row.id);
  }

  async close(): Promise<void> {
    await (this.world as any)?.close?.();
    await this.watcher?.end();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(() => r(undefined)));
  }
}
