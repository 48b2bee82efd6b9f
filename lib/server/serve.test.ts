/**
 * The API from other processes, on both journals: `gnl token create` makes a token, `gnl serve` serves
 * the API (no Studio), the queue worker example (docs/examples/api-queue-worker.ts) starts runs through
 * the typed client from a process of its own, and this test process decides and follows with the client
 * too. The server is SIGKILLed as soon as a refund's approval is answered (its resume in flight) and started again: the
 * client's follow reconnects by itself and sees the run finish; the outside service's own counter says
 * one refund; the same decision sent again is refused, recorded once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { createGnlClient } from '@/lib/durable/client';
import { childArgs } from '@/tests/support/child-bundles';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnlJson } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

for (const kind of ['pglite', 'postgres'] as const) {
  const available = kind === 'pglite' || Boolean(DATABASE_URL);
  (available ? describe : describe.skip)(
    `the API from other processes [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`,
    { timeout: 180_000 },
    () => {
      let service: OutsideService;
      let env: Record<string, string>;
      let drop: (() => Promise<void>) | undefined;
      let server: ChildProcess | undefined;
      let port: number;

      const serve = async (): Promise<ChildProcess> => {
        const child = spawn(process.execPath, [...childArgs('lib/cli/cli-entry.ts'), 'serve', '--port', String(port), '--lease-ms', '1500'], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let log = '';
        await new Promise<void>((resolve, reject) => {
          const onData = (chunk: Buffer) => {
            log += chunk.toString();
            if (log.includes('gnl serve: the API on')) resolve();
          };
          child.stderr?.on('data', onData);
          child.stdout?.on('data', onData);
          child.once('exit', (code) => reject(new Error(`gnl serve exited (${code}) before listening: ${log}`)));
        });
        return child;
      };

      beforeAll(async () => {
        service = await startOutsideService();
        env = { GNL_DEMO_SERVICE_URL: service.url, DATABASE_URL: '', GNL_DATA_DIR: '' };
        if (kind === 'pglite') env.GNL_DATA_DIR = tempDataDir();
        else {
          const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_api');
          drop = database.drop;
          env.DATABASE_URL = database.url;
        }
        port = await freePort();
      });
      afterAll(async () => {
        server?.kill('SIGKILL');
        await service.close();
        await drop?.();
      });

      it('a queue worker starts runs through the API; the server is SIGKILLed right after an approval and the client follows on: one refund per message, a decision recorded once', async () => {
        const made = await gnlJson<{ token: string; scopes: string[] }>(['token', 'create', 'support-desk', '--scope', 'read,start,decide'], { env });
        expect(made.scopes).toEqual(['read', 'start', 'decide']);
        server = await serve();
        const url = `http://127.0.0.1:${port}`;
        const before = service.stats();

        // The queue worker, a process of its own: two messages, the first delivered twice.
        const worker = spawn(process.execPath, childArgs('docs/examples/api-queue-worker.ts'), {
          env: { ...process.env, GNL_API_URL: url, GNL_API_TOKEN: made.token },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        const id = crypto.randomUUID().slice(0, 8);
        const messages = [
          { id: `${id}-1`, prompt: 'Customer c_42 wants a refund of 40 for order o_17' },
          { id: `${id}-1`, prompt: 'Customer c_42 wants a refund of 40 for order o_17' },
          { id: `${id}-2`, prompt: 'Customer c_7 has a question about order o_21' },
        ];
        worker.stdin?.end(`${messages.map((m) => JSON.stringify(m)).join('\n')}\n`);
        let out = '';
        let err = '';
        worker.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
        worker.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
        const [code] = await once(worker, 'exit');
        expect(code, err).toBe(0);
        const lines = out
          .trim()
          .split('\n')
          .map(
            (line) => JSON.parse(line) as { id: string; runId: string; created: boolean; status: string; pending: { toolCallId: string; toolName: string }[] },
          );
        expect(lines.map((l) => [l.id, l.created, l.status])).toEqual([
          [`${id}-1`, true, 'waiting-approval'],
          [`${id}-1`, false, 'waiting-approval'],
          [`${id}-2`, true, 'completed'],
        ]);
        const refund = lines[0] as (typeof lines)[number];
        expect(refund.pending[0]?.toolName).toBe('issueRefund');

        // This process decides with the client; the server is killed as soon as the decision is answered.
        const gnl = createGnlClient({ baseUrl: url, token: made.token });
        const toolCallId = refund.pending[0]?.toolCallId as string;
        expect(await gnl.decide(refund.runId, { decision: 'approve', toolCallId, reason: 'within policy' })).toMatchObject({ recorded: true, resumed: true });
        server.kill('SIGKILL');
        await once(server, 'exit');
        const followed = (async () => {
          let last: string | undefined;
          for await (const update of gnl.follow(refund.runId, { maxBackoffMs: 500 })) if (update.type === 'run') last = update.run.status;
          return last;
        })();
        server = await serve();
        expect(await followed).toBe('completed');
        expect(await gnl.result(refund.runId)).toMatchObject({ status: 'completed', finished: true });
        const twice = await gnl.decide(refund.runId, { decision: 'approve', toolCallId }).catch((e: unknown) => e);
        expect(twice).toMatchObject({ status: 409, kind: 'decision-conflict' });
        const after = service.stats();
        expect(after.refunds.performed - before.refunds.performed).toBe(1);
        expect(after.tickets.performed - before.tickets.performed).toBe(2);
        const approvals = (await gnl.events(refund.runId, { limit: 1000 })).events.filter((e) => e.type === 'tool-approval-response');
        expect(approvals).toHaveLength(1);
        expect(approvals[0]).toMatchObject({ by: 'token:support-desk' });

        // The token's life from the command line (on the embedded journal, with the server stopped: one process per folder).
        server.kill('SIGKILL');
        await once(server, 'exit');
        server = undefined;
        expect(await gnlJson(['token', 'revoke', 'support-desk', '--reason', 'rotated'], { env })).toMatchObject({ alreadyRevoked: false });
        const [listed] = await gnlJson<{ name: string; lastUsedAt?: string; revoked?: { by: string } }[]>(['token', 'list'], { env });
        expect(listed).toMatchObject({ name: 'support-desk', lastUsedAt: expect.any(String), revoked: { by: expect.stringMatching(/^os:/) } });
      });
    },
  );
}
