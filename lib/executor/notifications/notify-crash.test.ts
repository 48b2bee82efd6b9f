/**
 * No waiting run goes unannounced after a crash (docs/notifications.md). A real executor process runs
 * the demo's support agent to its approval with webhooks on and is SIGKILLed right after the run
 * suspends and before the webhook is sent: once as soon as the suspend committed (before its notifier
 * looked), once with the announcement claimed and about to be POSTed (its lease held by a dead process).
 * Another process's executor then announces the run, and the receiver (a real HTTP server on a free
 * port, verifying the signature with the guide's code) gets the event exactly once. Both journals.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { childArgs, ROOT } from '@/tests/support/child-bundles';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { startWebhookReceiver, type WebhookReceiver } from '@/tests/support/webhook-receiver';
import { Executor, type ExecutorEvent, notificationEventId, notifySettingsFromEnv, runNotifications } from '../index';

const SECRET = 'whsec-crash-0123456789abcdef';
const REFUND = 'Customer c_42 wants a refund of 40 for order o_17';

function notifyEnv(receiver: WebhookReceiver): Record<string, string> {
  return { GNL_NOTIFY_WEBHOOK_URL: receiver.url, GNL_NOTIFY_WEBHOOK_SECRET: SECRET, GNL_STUDIO_URL: 'https://studio.example.com' };
}

function runChild(env: Record<string, string>, args: string[]) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [...childArgs('tests/support/notify-child.ts'), ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  return new Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
}

const kinds = [
  { kind: 'pglite' as const, run: true },
  { kind: 'postgres' as const, run: Boolean(DATABASE_URL) },
];

for (const { kind, run } of kinds) {
  describe.runIf(run)(`a run that suspends in a process killed before its webhook is sent is announced once [${kind}]`, () => {
    let service: OutsideService;
    beforeAll(async () => {
      service = await startOutsideService();
    });
    afterAll(() => service.close());

    for (const killAt of ['suspended', 'sending'] as const) {
      it(`killed ${killAt === 'suspended' ? 'as the suspend committed' : 'with the announcement claimed, about to POST'}: another process sends it, once`, async () => {
        const receiver = await startWebhookReceiver(SECRET);
        let storageEnv: Record<string, string>;
        let open: () => Storage;
        let drop = async () => {};
        if (kind === 'pglite') {
          const dataDir = tempDataDir();
          storageEnv = { GNL_DATA_DIR: dataDir };
          open = () => new PGliteStorage({ dataDir });
        } else {
          const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_notify');
          drop = database.drop;
          storageEnv = { DATABASE_URL: database.url };
          open = () => new PostgresStorage({ connectionString: database.url });
        }
        const runId = uniqueRunId('notify-crash');
        const env = { ...storageEnv, ...notifyEnv(receiver), GNL_DEMO_SERVICE_URL: service.url };
        const exit = await runChild(env, [runId, REFUND, killAt]);
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        expect(receiver.received).toEqual([]); // the dead process sent nothing

        const storage = open();
        const events: ExecutorEvent[] = [];
        let executor: Executor | undefined;
        try {
          const [announced] = await runNotifications(runId, { storage });
          expect((await storage.runs.getRun(runId))?.status).toBe('waiting-approval');
          expect(announced).toMatchObject({ status: 'waiting-approval', delivery: 'pending', attempts: 0 });
          const eventId = notificationEventId(runId, announced?.seq as number);

          // Any executor process with webhooks on: the next one that starts (or looks) announces the run.
          const settings = notifySettingsFromEnv(notifyEnv(receiver));
          if (!settings) throw new Error('no settings');
          executor = new Executor({
            storage,
            registry: createAgentRegistry([supportAgent({ serviceUrl: service.url })]),
            pollMs: 100,
            notify: { ...settings, pollMs: 100 },
            onEvent: (event) => events.push(event),
          }).start();
          for (let i = 0; i < 600 && receiver.deliveriesOf(eventId).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
          await executor.stop({ graceMs: 1_000 });
          executor = undefined;

          expect(receiver.received.map((r) => [r.eventId, r.verified])).toEqual([[eventId, true]]);
          expect(receiver.deliveriesOf(eventId)).toEqual([
            expect.objectContaining({
              id: eventId,
              type: 'run.waiting',
              run: expect.objectContaining({ id: runId, agent: 'support', status: 'waiting-approval', seq: announced?.seq }),
              waitingFor: [expect.objectContaining({ kind: 'approval', toolName: 'issueRefund' })],
            }),
          ]);
          expect(await runNotifications(runId, { storage })).toEqual([expect.objectContaining({ delivery: 'delivered', attempts: 1 })]);
          expect(events.filter((e) => e.type === 'notification')).toEqual([expect.objectContaining({ runId, eventId, outcome: 'delivered' })]);
          console.log(`[notify crash ${kind}] killed ${killAt}: delivered once by the next process (${receiver.received.length} request)`);
        } finally {
          await executor?.stop({ graceMs: 1_000 });
          await storage.close();
          await receiver.close();
          await drop();
        }
      }, 300_000); // two PGlite opens and a child process on a loaded machine
    }
  });
}
