/**
 * `gnl fork` on a temp embedded journal (`--wait` makes the gnl command the executor; in the test's
 * process, tests/support/gnl-cli.ts, but for the crash, which kills a real gnl process), with the demo's real outside service judging what the fork sent: a fork that repeats the
 * parent's ticket and email answers them from the parent's record under their keys, so the service sees neither again; `gnl show` links
 * both ways; the preview lists what could act again; bad input is one line and a usage exit code.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrashPointStore, type OutsideService, startOutsideService } from '@/lib/demo';
import { PGliteStorage } from '@/lib/durable/storage';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';

const QUESTION = 'Customer c_42 has a question about order o_17';

describe('gnl fork [pglite]', { timeout: 300_000 }, () => {
  let service: OutsideService;
  let env: Record<string, string>;
  let dataDir: string;
  beforeAll(async () => {
    service = await startOutsideService();
    dataDir = tempDataDir();
    env = { GNL_DEMO_SERVICE_URL: service.url, GNL_DATA_DIR: dataDir };
  });
  afterAll(() => service.close());
  const run = (args: string[]) => gnl(args, { env });
  const json = <T = any>(args: string[]) => gnlJson<T>(args, { env });

  it('forks a finished run at a step: the preview names the keys, the fork answers the parent’s ticket and email from its record under them and the service sees neither again', async () => {
    const parentId = `cli-fork:${randomUUID().slice(0, 8)}`;
    const started = await json(['start', 'support', '--prompt', QUESTION, '--run-id', parentId, '--wait']);
    expect(started.run.status).toBe('completed');
    const parentEvents = (await json(['show', parentId])).events as { type: string; toolName?: string; idempotencyKey?: string }[];
    const emailKey = parentEvents.find((e) => e.type === 'tool-call-start' && e.toolName === 'sendEmail')?.idempotencyKey;

    const dry = await run(['fork', parentId, '--at-step', '2', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Fork of ${parentId} at step 2: keeps steps 1–1`);
    expect(dry.stdout).toContain(`step 3 sendEmail`);
    expect(dry.stdout).toContain(`key ${emailKey}`);
    expect(dry.stdout).toContain("createTicket: 'args': from the root run");

    const before = service.stats();
    const forked = await json(['fork', parentId, '--at-step', '2', '--by', 'alice', '--reason', 'see it again', '--wait']);
    expect(forked).toMatchObject({ forkOf: parentId, atStep: 2, created: true, run: { status: 'completed' } });
    const after = service.stats();
    // Answered from the parent's record under its keys (the door's related-effects.ts): nothing sent again.
    expect(after.tickets.performed - before.tickets.performed).toBe(0);
    expect(after.tickets.requests - before.tickets.requests).toBe(0);
    expect(after.emails.performed - before.emails.performed).toBe(0);
    expect(after.emails.requests - before.emails.requests).toBe(0);
    expect(after.customerLookups).toBe(before.customerLookups);

    const child = await run(['show', forked.runId]);
    expect(child.stdout).toContain(`Fork of   ${parentId} at step 2, by alice: "see it again"`);
    const parent = await run(['show', parentId]);
    expect(parent.stdout).toContain(`Forked    as ${forked.runId} at step 2, by alice: "see it again"`);
    expect(parent.stdout).toContain(`forked at step 2 as ${forked.runId} by alice`);
  });

  it('refuses a fork without who and why, a step the run never reached and an unknown run, each in one line', async () => {
    const parentId = `cli-fork:${randomUUID().slice(0, 8)}`;
    await json(['start', 'support', '--prompt', QUESTION, '--run-id', parentId, '--wait']);
    const noReason = await run(['fork', parentId, '--at-step', '1', '--by', 'alice']);
    expect([noReason.code, noReason.stderr.trim()]).toEqual([2, 'gnl: say who forks and why: --by <who> --reason "…" (or --dry-run to look first).']);
    const tooFar = await run(['fork', parentId, '--at-step', '9', '--by', 'alice', '--reason', 'x']);
    expect(tooFar.code).toBe(4);
    expect(tooFar.stderr).toContain(`Cannot fork run "${parentId}" at step 9: it has 4 recorded model steps`);
    const unknown = await run(['fork', 'support:nope', '--at-step', '1', '--by', 'alice', '--reason', 'x']);
    expect(unknown.code).toBe(3);
    const events = (await json(['show', parentId])).events as { type: string }[];
    expect(events.filter((e) => e.type === 'run-forked')).toEqual([]);
  });

  it('a gnl process SIGKILLed right after the fork’s new refund was performed: the resume’s check finds it under the fork’s key and nothing is refunded twice', async () => {
    const checks = env; // the demo's side effects with their `check` (its default)
    const parentId = `cli-fork:${randomUUID().slice(0, 8)}`;
    await gnlJson(['start', 'support', '--prompt', QUESTION, '--run-id', parentId, '--wait'], { env: checks });
    const forkId = `${parentId}:refund`;
    // Armed by the fork's id before it exists (the gnl process that executes it finds it); the folder is free between gnl processes.
    const storage = new PGliteStorage({ dataDir });
    await new CrashPointStore(storage).arm(forkId, 'after-refund-answered');
    await storage.close();
    const before = service.stats();
    const waiting = await gnlJson(
      [
        'fork',
        parentId,
        '--at-step',
        '3',
        '--by',
        'alice',
        '--reason',
        'refund after all',
        '--instruction',
        'The customer now wants a refund of 25 for it.',
        '--new-run-id',
        forkId,
        '--wait',
      ],
      { env: checks },
    );
    expect(waiting.run).toMatchObject({ status: 'waiting-approval', pending: [{ toolName: 'issueRefund' }] });
    expect((await gnl(['approve', forkId, waiting.run.pending[0].toolCallId, '--by', 'alice'], { env: checks })).code).toBe(0);
    const crashed = await gnl(['resume', forkId, '--by', 'alice', '--wait'], { env: checks, process: true });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    expect(service.stats().refunds.performed - before.refunds.performed).toBe(1);
    const resumed = await gnlJson(['resume', forkId, '--by', 'alice', '--wait'], { env: checks });
    expect(resumed.run.status).toBe('completed');
    const after = service.stats();
    expect(after.refunds.performed - before.refunds.performed).toBe(1);
    expect(after.refunds.requests - before.refunds.requests).toBe(1);
    const events = (await gnlJson(['show', forkId], { env: checks })).events as { type: string; toolName?: string; idempotencyKey?: string; source?: string }[];
    const start = events.find((e) => e.type === 'tool-call-start' && e.toolName === 'issueRefund');
    expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === 'issueRefund')).toMatchObject({
      idempotencyKey: start?.idempotencyKey,
      source: 'check',
    });
    expect(after.refunds.byKey[start?.idempotencyKey as string]).toEqual({ requests: 1, performed: 1 });
  });
});
