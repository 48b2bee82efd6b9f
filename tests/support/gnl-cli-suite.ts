/**
 * The command line's suite, declared once per journal: every command runs through the command line's
 * own entry against a real journal and the demo's real outside service, judged by the journal and by
 * the service's own counters. Commands run in the test's process (gnl-cli.ts); what only a process
 * shows runs as a real `gnl` process: the launcher, a crash point that kills the gnl process, a
 * terminal, two commands at once.
 *
 * Embedded journal (a temp GNL_DATA_DIR): `--wait` makes the gnl process the executor, so a run moves
 * only while a gnl process waits on it, and a demo crash point kills that gnl process itself.
 * Postgres (a fresh database of its own): `npm run worker` processes execute, as in production; gnl
 * only records, decides and follows. A crash point kills the worker, and the next worker takes the run
 * over after its lease (2 s here).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionOperator, startOperatorSession, verifyOperator } from '@/lib/accounts';
import { type OutsideService, type ServiceStats, startOutsideService } from '@/lib/demo';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { createFreshDatabase } from './fresh-database';
import { type GnlResult, gnl, gnlJson, timingSummary } from './gnl-cli';
import { DATABASE_URL, tempDataDir } from './journals';
import { startWorker, type WorkerProcess } from './worker-process';
import { childArgs } from './child-bundles';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REFUND = 'Customer c_42 wants a refund for order o_17';
const PASSWORD = 'correct horse battery';

/** An expected failure: one line on stderr, `gnl: …`, no stack trace. */
function expectOneLineFailure(result: GnlResult, code: number, text: string | RegExp): void {
  expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(code);
  expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr.startsWith('gnl: ')).toBe(true);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  if (typeof text === 'string') expect(result.stderr).toContain(text);
  else expect(result.stderr).toMatch(text);
}

function delta(before: ServiceStats, after: ServiceStats, kind: 'tickets' | 'refunds' | 'emails'): number {
  return after[kind].performed - before[kind].performed;
}

export function describeGnl(kind: 'pglite' | 'postgres'): void {
  const available = kind === 'pglite' || Boolean(DATABASE_URL);
  const suite = available ? describe : describe.skip;
  // Every test runs 5 to 15 gnl commands, some of them processes of about a second each (several on a loaded machine).
  suite(`gnl command line [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`, { timeout: 300_000 }, () => {
    let service: OutsideService;
    let env: Record<string, string>;
    let dataDir: string | undefined;
    let databaseUrl: string | undefined;
    let drop: (() => Promise<void>) | undefined;
    const workers: WorkerProcess[] = [];
    const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
      gnl(args, { env: { ...env, ...extra }, ...(input !== undefined ? { input } : {}) });
    const json = <T = any>(args: string[], extra: Record<string, string> = {}) => gnlJson<T>(args, { env: { ...env, ...extra } });
    const runId = (name: string) => `cli-${name}:${randomUUID().slice(0, 8)}`;

    /** Postgres: a live worker to execute runs (a crash point may have killed the last one). */
    const ensureWorker = () => {
      if (kind !== 'postgres') return;
      const alive = workers.find((w) => w.child.exitCode === null && w.child.signalCode === null);
      if (!alive) workers.push(startWorker({ databaseUrl: databaseUrl as string, serviceUrl: service.url, leaseMs: 2_000, pollMs: 100 }));
    };

    /** A storage on the same journal, in this process, for what the CLI cannot show (a sign-in). Closed by the caller. */
    const openStorage = (): Storage =>
      kind === 'pglite' ? new PGliteStorage({ dataDir: dataDir as string }) : new PostgresStorage({ connectionString: databaseUrl as string });

    beforeAll(async () => {
      service = await startOutsideService();
      env = { GNL_DEMO_SERVICE_URL: service.url };
      if (kind === 'pglite') {
        dataDir = tempDataDir();
        env.GNL_DATA_DIR = dataDir;
      } else {
        const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_cli');
        drop = database.drop;
        databaseUrl = database.url;
        env.DATABASE_URL = databaseUrl;
      }
      ensureWorker();
    });

    afterAll(async () => {
      await Promise.all(workers.map((w) => w.end()));
      await drop?.();
      await service?.close();
      console.log(`gnl command line [${kind}]: ${timingSummary()}`);
    });

    it('bin/gnl.mjs, the launcher npx runs, gives the version and lists the journal as the precompiled entry does', async () => {
      const version = await gnl(['--version'], { env, viaBin: true });
      const { version: expected } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
      expect(version).toMatchObject({ code: 0, stdout: `${expected}\n` });
      expect((await gnl(['--version'], { env })).stdout).toBe(`${expected}\n`);
      const viaBin = await gnl(['list', '--json'], { env, viaBin: true });
      expect(viaBin.code, viaBin.stderr).toBe(0);
      expect(JSON.parse(viaBin.stdout)).toEqual(await json(['list']));
    });

    it('start → list → show → approve → resume: the run waits for the refund approval, then finishes (one ticket, one refund, one email)', async () => {
      const id = runId('refund');
      const before = service.stats();
      const started = await json(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait']);
      expect(started).toMatchObject({
        runId: id,
        agent: 'support',
        created: true,
        run: { status: 'waiting-approval' },
        queue: { outcome: 'waiting-approval' },
      });
      expect(started.executedHere).toBe(kind === 'pglite');
      const call = started.run.pending[0].toolCallId as string;
      expect(started.run.pending[0]).toMatchObject({ kind: 'approval', toolName: 'issueRefund', input: { orderId: 'o_17', amount: 40 } });

      const listed = await json(['list', '--status', 'waiting-approval']);
      expect(listed.runs.map((r: { runId: string }) => r.runId)).toContain(id);
      const table = await run(['list', '--status', 'waiting-approval']);
      expect(table.stdout).toMatch(/^RUN ID\s+STATUS\s+AGENT\s+STEPS\s+UPDATED\s+WAITING FOR$/m);
      expect(table.stdout).toMatch(new RegExp(`^${id}\\s+waiting-approval\\s+support\\s+3\\s+.*approval: issueRefund$`, 'm'));

      const shown = await run(['show', id]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('Status    waiting-approval');
      expect(shown.stdout).toContain(`approval of issueRefund (${call}) since`);
      expect(shown.stdout).toContain(`gnl approve ${id} ${call} --by <you>`);
      expect(shown.stdout).toMatch(
        /^\s+1 {2}\d\d:\d\d:\d\d\.\d{3} {2}run-start\s+agent support \(version [0-9a-f]{16}\) · model gnl-demo\/scripted-support-v1$/m,
      );
      expect(shown.stdout).toMatch(/model-step\s+step 1 · tokens \d+ in, \d+ out · .* · finish tool-calls/);
      expect(shown.stdout).toContain('tool call lookupCustomer (call-0-lookupCustomer) {"customerId":"c_42"}');
      expect(shown.stdout).toMatch(/tool-call-end\s+createTicket \(call-1-createTicket\) attempt 1 · executed · .* · key gnl3\w_[\w-]+/);
      expect(shown.stdout).toMatch(/tool-approval-request\s+issueRefund \(call-2-issueRefund\) needs approval/);
      // What a resume would do with the last step's call, by the run projection's plan.
      expect(shown.stdout).toContain(`A resume would:\n  issueRefund ${call} waits: it waits for a person to approve or reject it`);

      const approved = await run(['approve', id, call, '--by', 'alice@example.com', '--reason', 'within policy']);
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain(`Approved issueRefund (${call}) of run ${id}, by alice@example.com: within policy.`);
      // A second decision on the same call names who decided first.
      expectOneLineFailure(await run(['reject', id, call, '--by', 'bob@example.com']), 4, `was already decided by alice@example.com at `);
      expect((await run(['show', id])).stdout).toContain(`  issueRefund ${call} executes: approved by alice@example.com`);

      const resumed = await run(['resume', id, '--by', 'alice@example.com', '--wait']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain(`Run ${id} is runnable again (it was waiting-approval).`);
      expect(resumed.stdout).toMatch(/tool-call-end\s+issueRefund \(call-2-issueRefund\) attempt 1 · executed/);
      expect(resumed.stdout).toMatch(/run-complete\s+completed after 5 steps · finish stop/);
      expect(resumed.stdout).toContain(`Run ${id} is completed.`);

      const after = service.stats();
      expect([delta(before, after, 'tickets'), delta(before, after, 'refunds'), delta(before, after, 'emails')]).toEqual([1, 1, 1]);
      const final = await json(['show', id]);
      expect(final.run).toMatchObject({ status: 'completed', stepCount: 5 });
      expect(final.events.filter((e: { type: string }) => e.type === 'tool-approval-response')).toMatchObject([
        { approved: true, by: 'alice@example.com', reason: 'within policy' },
      ]);
      const history = await run(['show', id]);
      expect(history.stdout).toMatch(/tool-approval-response\s+approved issueRefund \(call-2-issueRefund\) by alice@example.com/);
      expect(history.stdout).not.toContain('A resume would:');
    });

    it('reject: the model sees the refusal and its reason; no refund, an apology email', async () => {
      const id = runId('reject');
      const before = service.stats();
      const started = await json(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait']);
      const call = started.run.pending[0].toolCallId as string;
      const rejected = await run(['reject', id, call, '--by', 'alice@example.com', '--reason', 'order already refunded by bank transfer']);
      expect(rejected.code, rejected.stderr).toBe(0);
      expect(rejected.stdout).toContain(`Rejected issueRefund (${call}) of run ${id}, by alice@example.com: order already refunded by bank transfer.`);
      const resumed = await json(['resume', id, '--by', 'alice@example.com', '--wait']);
      expect(resumed.run.status).toBe('completed');
      const after = service.stats();
      expect([delta(before, after, 'refunds'), delta(before, after, 'emails')]).toEqual([0, 1]);
      const shown = await run(['show', id, '--full']);
      expect(shown.stdout).toMatch(/tool-approval-response\s+rejected issueRefund \(call-2-issueRefund\) by alice@example.com/);
      expect(shown.stdout).toContain('reason: "order already refunded by bank transfer"');
    });

    it('cancel: recorded with who and why; a canceled run cannot be resumed or canceled again', async () => {
      const id = runId('cancel');
      const started = await run(['start', 'support', '--prompt', REFUND, '--run-id', id]);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout).toContain(`Started run ${id} (agent support).`);
      expect(started.stdout).toContain(
        kind === 'pglite'
          ? `Queued. On the embedded journal it executes when the Studio starts (npm run studio), or in this terminal: gnl resume ${id} --wait`
          : 'Queued: a worker (npm run worker) or the Studio executes it.',
      );
      const canceled = await run(['cancel', id, '--by', 'alice@example.com', '--reason', 'customer withdrew']);
      expect(canceled.code, canceled.stderr).toBe(0);
      expect(canceled.stdout).toContain(`Canceled run ${id} (by alice@example.com: customer withdrew).`);
      const shown = await json(['show', id]);
      expect(shown.run.status).toBe('canceled');
      // On Postgres a worker may be inside the run's first step: it learns of the cancel on its next append
      // (docs/runtime.md), which is still recorded; no tool starts after the cancel.
      const events = shown.events as { type: string; seq: number }[];
      const cancel = events.find((e) => e.type === 'run-cancel');
      expect(cancel).toMatchObject({ type: 'run-cancel', by: 'alice@example.com', reason: 'customer withdrew' });
      const after = events.filter((e) => e.seq > (cancel?.seq ?? 0)).map((e) => e.type);
      for (const type of ['tool-call-start', 'run-complete']) expect(after).not.toContain(type);
      if (kind === 'pglite') expect(events.at(-1)).toBe(cancel); // nobody executes it on the embedded journal
      expect((await run(['show', id])).stdout).toMatch(/run-cancel\s+canceled by alice@example.com/);
      expectOneLineFailure(await run(['cancel', id, '--by', 'bob@example.com']), 4, 'was already canceled by alice@example.com at ');
      expectOneLineFailure(await run(['resume', id, '--by', 'alice@example.com']), 4, `Run "${id}" was canceled.`);
      expect((await json(['list', '--status', 'canceled'])).runs.map((r: { runId: string }) => r.runId)).toContain(id);
    });

    it('resolve: a refund performed just before its process died blocks the run; marked done with the PSP’s output, the run finishes without refunding twice', async () => {
      const id = runId('resolve');
      const before = service.stats();
      // support-unchecked: no `check` on its refund, so a crash after it blocks the run until an operator resolves it.
      const started = await json(['start', 'support-unchecked', '--prompt', REFUND, '--run-id', id, '--crash-at', 'after-refund-answered', '--wait']);
      const call = started.run.pending[0].toolCallId as string;
      expect((await run(['approve', id, call, '--by', 'alice@example.com'])).code).toBe(0);

      let blocked: GnlResult;
      if (kind === 'pglite') {
        // This gnl process executes the refund and dies right after the service answered, before the result is recorded.
        const crashed = await gnl(['resume', id, '--by', 'alice@example.com', '--wait'], { env, process: true });
        expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
        blocked = await run(['resume', id, '--by', 'alice@example.com', '--wait']);
      } else {
        // The worker executes it and dies; gnl keeps following while the next worker takes the run over after the lease.
        const crashedWorker = workers.at(-1) as WorkerProcess;
        const following = run(['resume', id, '--by', 'alice@example.com', '--wait', '--timeout', '60']);
        expect((await crashedWorker.exited).signal).toBe('SIGKILL');
        ensureWorker();
        blocked = await following;
      }
      expect(blocked.code, blocked.stderr).toBe(0);
      expect(blocked.stdout).toContain(`Run ${id} is blocked.`);
      expect(blocked.stdout).toContain(`unknown outcome of issueRefund (${call}), attempt 1 started`);
      expect(blocked.stdout).toContain(`gnl resolve ${id} ${call} --done --output '<JSON>' --by <you>`);
      expect(delta(before, service.stats(), 'refunds')).toBe(1);

      expectOneLineFailure(
        await run(['resolve', id, call, '--done', '--output', '{"ok": true,', '--by', 'alice@example.com']),
        2,
        '--output is not valid JSON',
      );
      expectOneLineFailure(await run(['resolve', id, call, '--by', 'alice@example.com']), 2, 'say --done');
      const refund = service.records('refunds').at(-1);
      // An output that does not match issueRefund's output schema (found through the agent registry) is refused, naming the fields.
      expectOneLineFailure(
        await run(['resolve', id, call, '--done', '--output', JSON.stringify({ ok: true, refund: { ...refund, amount: '40' } }), '--by', 'alice@example.com']),
        2,
        /does not match the tool's output schema: refund\.amount: .*\. Nothing was recorded\./,
      );
      const resolved = await run([
        'resolve',
        id,
        call,
        '--done',
        '--output',
        JSON.stringify({ ok: true, refund }),
        '--by',
        'alice@example.com',
        '--reason',
        'the PSP dashboard shows the refund',
      ]);
      expect(resolved.code, resolved.stderr).toBe(0);
      expect(resolved.stdout).toContain(`Marked done issueRefund (${call}) of run ${id}, by alice@example.com: the PSP dashboard shows the refund.`);
      expectOneLineFailure(await run(['resolve', id, call, '--not-done', '--by', 'bob@example.com']), 4, 'by alice@example.com');

      const finished = await json(['resume', id, '--by', 'alice@example.com', '--wait']);
      expect(finished.run.status).toBe('completed');
      const after = service.stats();
      expect([delta(before, after, 'refunds'), delta(before, after, 'emails')]).toEqual([1, 1]); // refunded once, though its process died
      const shown = await run(['show', id]);
      expect(shown.stdout).toMatch(/side-effect-resolution\s+issueRefund \(call-2-issueRefund\) marked done by alice@example.com/);
    });

    it('provide: a run waiting for the result of a tool without execute lists the command; the result is recorded once, with who and why; a decision while a run executes says so', async () => {
      const id = runId('provide');
      const executing = runId('executing');
      const storage = openStorage();
      try {
        const hold = await storage.runs.hold(id);
        await hold.create({ prompt: 'Where is c_42?', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['geolocate'] });
        const item = { kind: 'tool-result' as const, toolCallId: 'call-geo', toolName: 'geolocate', input: { customerId: 'c_42' } };
        await hold.append([
          { type: 'run-suspend', status: 'waiting-tool-result', pending: [{ ...item, idempotencyKey: 'k-geo', requestedAt: new Date().toISOString() }] },
        ]);
        await hold.release();
        const other = await storage.runs.hold(executing);
        await other.create({ prompt: 'Busy', modelId: 'scripted-v1', provider: 'scripted', toolNames: [] });
        await other.release(); // left running, as a worker in the middle of it would
      } finally {
        await storage.close();
      }
      const shown = await run(['show', id]);
      expect(shown.stdout).toContain('the result of geolocate (call-geo) (a tool without execute) since');
      expect(shown.stdout).toContain(`gnl provide ${id} call-geo --output '<JSON>' --by <you>`);
      expect((await json(['list', '--status', 'waiting-tool-result'])).runs.map((r: { runId: string }) => r.runId)).toContain(id);

      expectOneLineFailure(await run(['provide', id, 'call-geo', '--output', '{"lat":', '--by', 'alice@example.com']), 2, '--output is not valid JSON');
      const provided = await run(['provide', id, 'call-geo', '--output', '{"lat":52.5,"lng":13.4}', '--by', 'alice@example.com', '--reason', 'from the app']);
      expect(provided.code, provided.stderr).toBe(0);
      expect(provided.stdout).toContain(`Provided the result of geolocate (call-geo) of run ${id}, by alice@example.com: from the app.`);
      expect(provided.stdout).toContain('Output the model gets: {"lat":52.5,"lng":13.4}');
      expectOneLineFailure(await run(['provide', id, 'call-geo', '--output', '{}', '--by', 'bob@example.com']), 4, 'by alice@example.com');
      expect((await json(['show', id])).events.at(-1)).toMatchObject({
        type: 'tool-call-end',
        source: 'provided',
        by: 'alice@example.com',
        reason: 'from the app',
      });
      expect((await run(['show', id])).stdout).toContain('geolocate (call-geo) · result provided by alice@example.com: from the app');

      expectOneLineFailure(
        await run(['approve', executing, 'call-1', '--by', 'alice@example.com']),
        4,
        /is running \(its invocation began .+\) and waits for no decision now \(executing, or stopped mid-run until it is resumed\); decide when it waits again\. Once it waits, gnl show /,
      );
    });

    it('operators add, list, disable and history: the account signs in until it is disabled; every change audited', async () => {
      const login = `ada-${randomUUID().slice(0, 6)}@example.com`;
      const added = await run(['operators', 'add', login.toUpperCase(), '--name', 'Ada Lovelace', '--by', 'root@example.com', '--json'], {}, `${PASSWORD}\n`);
      expect(added.code, added.stderr).toBe(0);
      expect(JSON.parse(added.stdout)).toMatchObject({ login, name: 'Ada Lovelace', createdBy: 'root@example.com' });
      expect(added.stdout).not.toContain(PASSWORD);

      expectOneLineFailure(
        await run(['operators', 'add', login, '--name', 'Ada again'], {}, `${PASSWORD}\n`),
        4,
        `exists already (added by root@example.com at `,
      );
      expectOneLineFailure(await run(['operators', 'add', 'bob', '--name', 'Bob'], {}, 'too short\n'), 2, 'password: at least 12 characters');
      expectOneLineFailure(await run(['operators', 'add', 'bob', '--name', 'Bob'], {}, ''), 2, 'no password on stdin');
      expectOneLineFailure(
        await run(['operators', 'add', 'bob', '--name', 'Bob', '--password', PASSWORD]),
        2,
        'passwords are never taken from the command line',
      );
      expectOneLineFailure(await run(['operators', 'add', 'Bad Login!', '--name', 'Bob'], {}, `${PASSWORD}\n`), 2, 'login: letters, digits');
      expect((await run(['operators', 'add', '--help'])).stdout).toContain('never taken from\nthe command line');

      const storage = openStorage();
      try {
        expect(await verifyOperator(login, PASSWORD, { storage })).toMatchObject({ ok: true, operator: { login, name: 'Ada Lovelace' } });
      } finally {
        await storage.close();
      }

      const listed = await run(['operators', 'list']);
      expect(listed.stdout).toMatch(new RegExp(`^${login.replaceAll('.', '\\.')}\\s+Ada Lovelace\\s+.*UTC\\s+root@example.com\\s+active$`, 'm'));
      const disabled = await run(['operators', 'disable', login, '--by', 'root@example.com', '--reason', 'left the team']);
      expect(disabled.code, disabled.stderr).toBe(0);
      expect(disabled.stdout).toContain(`Disabled operator ${login} (Ada Lovelace): disabled `);
      expectOneLineFailure(await run(['operators', 'disable', login, '--by', 'bob@example.com']), 4, `was already disabled by root@example.com at `);
      expectOneLineFailure(await run(['operators', 'disable', 'nobody-here', '--by', 'root@example.com']), 3, 'No operator "nobody-here" exists.');
      expect((await json(['operators', 'list', '--enabled'])).map((o: { login: string }) => o.login)).not.toContain(login);
      expect((await run(['operators', 'list'])).stdout).toMatch(/disabled .* UTC by root@example.com \(left the team\)$/m);
      const history = await json(['operators', 'history', login]);
      expect(history.map((e: { action: string; by: string }) => [e.action, e.by])).toEqual([
        ['disabled', 'root@example.com'],
        ['added', 'root@example.com'],
      ]);

      const again = openStorage();
      try {
        expect(await verifyOperator(login, PASSWORD, { storage: again })).toMatchObject({ ok: false, reason: 'disabled' });
      } finally {
        await again.close();
      }
    });

    it('operators sign-out ends every Studio session of the account at once, audited with who; the account stays enabled', async () => {
      const login = `ends-${randomUUID().slice(0, 6)}`;
      expect(
        (await run(['operators', 'add', login, '--name', 'Ends Sessions', '--by', 'root@example.com', '--role', 'approver'], {}, `${PASSWORD}\n`)).code,
      ).toBe(0);
      const expiresAt = new Date(Date.now() + 3_600_000);
      const sessions: { sessionId: string; operatorId: string }[] = [];
      const before = openStorage();
      try {
        const verified = await verifyOperator(login, PASSWORD, { storage: before });
        if (!verified.ok) throw new Error(verified.message);
        for (let i = 0; i < 2; i++) {
          const started = await startOperatorSession({ operatorId: verified.operator.id, expiresAt, storage: before });
          sessions.push({ sessionId: started.sessionId, operatorId: verified.operator.id });
        }
        for (const s of sessions) expect(await sessionOperator(s, { storage: before })).toMatchObject({ login });
      } finally {
        await before.close();
      }

      const ended = await run(['operators', 'sign-out', login, '--by', 'root@example.com']);
      expect(ended.code, ended.stderr).toBe(0);
      expect(ended.stdout).toContain(`Signed operator ${login} (Ends Sessions) out everywhere: 2 sessions ended.`);
      expectOneLineFailure(await run(['operators', 'sign-out', 'nobody-here', '--by', 'root@example.com']), 3, 'No operator "nobody-here" exists.');
      const history = await json(['operators', 'history', login]);
      expect(history.map((e: { action: string; by: string; detail: unknown }) => [e.action, e.by, e.detail])).toEqual([
        ['signed-out-everywhere', 'root@example.com', { sessions: 2 }],
        ['added', 'root@example.com', { name: 'Ends Sessions', role: 'approver' }],
      ]);

      const after = openStorage();
      try {
        for (const s of sessions) expect(await sessionOperator(s, { storage: after })).toBeUndefined();
        expect(await verifyOperator(login, PASSWORD, { storage: after })).toMatchObject({ ok: true });
      } finally {
        await after.close();
      }
    });

    it('bad input: one readable line and an exit code by kind, never a stack trace', async () => {
      const id = runId('bad');
      await json(['start', 'support', '--prompt', REFUND, '--run-id', id]);
      const journal = kind === 'pglite' ? `the embedded journal at ${dataDir}` : 'the Postgres journal (DATABASE_URL)';
      const cases: [string[], number, string | RegExp][] = [
        [['start', 'nope', '--prompt', 'hi'], 2, 'No agent is registered as "nope". Known agents: "support", "support-four-eyes", "support-unchecked".'],
        [['start', 'support'], 2, "required option '--prompt <text>' not specified"],
        [['start', 'support', '--prompt', '   '], 2, 'the prompt must not be empty'],
        [['start', 'support', '--prompt', 'another job', '--run-id', id], 4, `Run "${id}" exists with a different start input (prompt).`],
        [['start', 'support', '--prompt', 'x', '--crash-at', 'nowhere'], 2, "argument 'nowhere' is invalid. Allowed choices are after-ticket-created"],
        [['show', 'missing:run'], 3, `no run "missing:run" in ${journal}.`],
        [['resume', 'missing:run', '--by', 'alice@example.com'], 3, 'Run "missing:run" does not exist.'],
        [['approve', 'missing:run', 'call-1', '--by', 'alice'], 3, 'run "missing:run" does not exist'],
        // The run just started: still running (it waits for no decision) or already waiting for its refund
        // approval (then call-9 is not what it asks), depending on how far a worker got.
        [['approve', id, 'call-9-nothing', '--by', 'alice'], 4, /waits for no decision now|is not waiting for this decision/],
        [['cancel', id], 2, "required option '--by <who>' not specified"],
        [
          ['list', '--status', 'sideways'],
          2,
          'Allowed choices are running, waiting-approval, waiting-tool-result, waiting, blocked, completed, failed, canceled',
        ],
        [['list', '--limit', '501'], 2, 'Expected a whole number from 1 to 500.'],
        [['list', '--cursor', 'not-a-cursor'], 2, 'the cursor is not one this journal gave out'],
        [['frobnicate'], 2, "unknown command 'frobnicate'"],
        [['show', id, '--colour'], 2, "unknown option '--colour'"],
      ];
      for (const [args, code, text] of cases) expectOneLineFailure(await run(args), code, text);
      // The same runId with the same prompt is the same job: nothing new, no error.
      const repeated = await json(['start', 'support', '--prompt', REFUND, '--run-id', id]);
      expect(repeated).toMatchObject({ runId: id, created: false });
    });

    if (kind === 'postgres') {
      it('--wait with no worker running says so, and --timeout gives up with exit 6 while the run stays queued', async () => {
        await Promise.all(workers.map((w) => w.end()));
        const id = runId('nobody');
        const waited = await run(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait', '--timeout', '7']);
        expect(waited.code, waited.stderr).toBe(6);
        expect(waited.stderr).toContain(`Nobody has claimed run "${id}" yet: is a worker (npm run worker) or the Studio running on this database?`);
        expect(waited.stderr).toMatch(new RegExp(`gnl: gave up waiting after \\d+ s; run "${id}" goes on \\(queued\\)`));
        expect((await json(['show', id])).queue).toMatchObject({ runnable: true, leaseOwner: null });
      });
      return;
    }

    it('a run whose agent changed (RunDivergedError) is abandoned with a reason and restarted as a new run', async () => {
      const id = runId('diverged');
      const started = await json(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait']);
      await json(['approve', id, started.run.pending[0].toolCallId, '--by', 'alice@example.com']);
      // The deployment's support agent now runs on another model: the recorded run cannot replay on it.
      const diverged = await run(['resume', id, '--by', 'alice@example.com', '--wait'], {
        GNL_MODEL: 'openai:gpt-4.1-mini',
        OPENAI_API_KEY: 'sk-never-called',
      });
      // Settled but refused: exit 4, as docs/cli.md lists a divergence (it printed what happened and what to do first).
      expect(diverged.code, diverged.stderr).toBe(4);
      expect(diverged.stdout).toContain('Last invocation: diverged.');
      expect(diverged.stdout).toMatch(/RunDivergedError: Run "[^"]+" exists with a different start input \(modelId, provider\)/);
      expect(diverged.stdout).toContain(`gnl abandon ${id} --by <you> --reason "…"    or    gnl restart ${id} --by <you>`);

      const abandoned = await run(['abandon', id, '--by', 'alice@example.com', '--reason', 'the model changed']);
      expect(abandoned.code, abandoned.stderr).toBe(0);
      expect(abandoned.stdout).toContain(`Abandoned run ${id} (by alice@example.com: the model changed).`);
      expectOneLineFailure(await run(['resume', id, '--by', 'alice@example.com']), 4, `Run "${id}" was abandoned (by alice@example.com: the model changed).`);
      expectOneLineFailure(await run(['abandon', id, '--by', 'alice@example.com']), 2, "required option '--reason <text>' not specified");

      const next = `${id}:again`;
      const restarted = await json(['restart', id, '--by', 'alice@example.com', '--run-id', next, '--wait']);
      expect(restarted).toMatchObject({ runId: next, restartOf: id, created: true, run: { status: 'waiting-approval', input: { prompt: REFUND } } });
      const shown = await run(['show', id]);
      expect(shown.stdout).toContain('Status    canceled');
      expect(shown.stdout).toContain(`restarted as ${next}`);
      expect((await run(['show', next])).stdout).toContain(`restart of ${id}`);
    });

    it('while another process holds the embedded journal (the Studio), gnl says who holds it (exit 5)', async () => {
      // The holder's script under a deep folder (as a global install's can be): its name must still show.
      const args = childArgs('tests/support/hold-data-dir.ts');
      const script = args.at(-1) as string;
      const deep = mkdtempSync(path.join(tmpdir(), `gnl-cli-${'a-deep-install-folder-'.repeat(5)}`));
      const linked = path.join(deep, path.basename(script));
      symlinkSync(script, linked);
      const holder = spawn(process.execPath, [...args.slice(0, -1), linked, dataDir as string], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        await new Promise<void>((resolve) => holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()));
        const locked = await run(['list']);
        expectOneLineFailure(locked, 5, `the embedded journal at ${dataDir} is in use by process ${holder.pid} on `);
        expect(locked.stderr).toMatch(/hold-data-dir\.(ts|mjs) /); // the holder's command line (its source or its bundle)
        expect(locked.stderr).toContain('stop that process first, or let both share Postgres (set DATABASE_URL)');
      } finally {
        holder.kill('SIGKILL');
        await new Promise((resolve) => holder.on('exit', resolve));
      }
      expect((await run(['list'])).code).toBe(0); // a dead holder's folder is taken over at once
    });

    // A terminal for gnl, through Python's pty module (Node has none): the prompt must not echo what is typed.
    it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
      'operators add at a terminal asks twice without echo, and refuses two different passwords',
      async () => {
        const typed = async (login: string, first: string, second: string) => {
          const child = spawn('python3', [path.join(ROOT, 'tests/support/pty-prompt.py'), login, first, second], {
            cwd: ROOT,
            env: { ...process.env, ...env, NODE_OPTIONS: '' },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
            out += chunk;
          });
          const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
          return { code, out };
        };
        const login = `tty-${randomUUID().slice(0, 6)}`;
        const ok = await typed(login, PASSWORD, PASSWORD);
        // Without --role: the journal's first account is its admin, later ones approvers.
        expect(ok.out).toMatch(new RegExp(`Added operator ${login} \\(Tty User, (admin|approver)\\), by root@example\\.com\\.`));
        expect(ok.out).toContain('Password (at least 12 characters): ');
        expect(ok.out).not.toContain(PASSWORD);
        expect(ok.out).toContain('exit 0');
        const differ = await typed(`${login}-2`, PASSWORD, `${PASSWORD}!`);
        expect(differ.out).toContain('gnl: the two passwords differ; nothing was added.');
        expect(differ.out).toContain('exit 2');
      },
    );

    it('a Postgres that cannot be reached is named, not a stack trace (exit 5)', async () => {
      const result = await gnl(['list'], { env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:9/gnl' } });
      expectOneLineFailure(result, 5, "cannot reach the journal's Postgres (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:9");
    });
  });
}
