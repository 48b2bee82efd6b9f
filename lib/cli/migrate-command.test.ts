/**
 * `gnl migrate` through gnl's own entry (tests/support/gnl-cli.ts) on a temp embedded journal: a run recorded on an earlier version of
 * the support agent (another system prompt) waits for its refund's approval; the deployed registry
 * (agents/index.ts, in the gnl process) no longer has that version. The preview writes nothing, the
 * migration is journaled with who and why, `gnl show` says the version, and a later `gnl resume --wait`
 * (a new process: the deploy) finishes it on the new version with one ticket, one refund, one email.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { defineAgent, runAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { supportTools } from '@/lib/demo/support-tools';
import { RunState } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { gnl } from '@/tests/support/gnl-cli';
import { tempDataDir, uniqueRunId } from '@/tests/support/journals';

let service: OutsideService;
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  service = await startOutsideService();
  dataDir = tempDataDir();
  env = { GNL_DEMO_SERVICE_URL: service.url, GNL_DATA_DIR: dataDir };
});
afterAll(() => service.close());

/** The journal, opened in this process between gnl processes (one process per data folder). */
async function withJournal<T>(use: (storage: PGliteStorage) => Promise<T>): Promise<T> {
  const storage = new PGliteStorage({ dataDir });
  try {
    return await use(storage);
  } finally {
    await storage.close();
  }
}

it('gnl migrate previews, refuses without who and why, migrates, and the run finishes on the new version: nothing finished runs again', {
  timeout: 300_000,
}, async () => {
  const deployed = supportAgent({ serviceUrl: service.url });
  const earlier = defineAgent({
    name: 'support',
    model: deployed.model,
    tools: supportTools({ serviceUrl: service.url, checks: false }),
    system: `${SUPPORT_SYSTEM}\n(an earlier wording)`,
    stopWhen: deployed.settings.stopWhen,
  });
  const runId = uniqueRunId('cli-migrate');
  const before = service.stats();
  const recorded = await withJournal(async (storage) => {
    const result = await runAgent({ agent: earlier, runId, input: { prompt: 'Customer c_42 wants a refund of 40 for order o_17' }, journal: storage.runs });
    expect(result.status).toBe('waiting-approval');
    return (await storage.runs.events(runId)).length;
  });

  // The deployment registers one version of support: the current one, pinned; the run's is not among them.
  const agents = await gnl(['agents'], { env });
  expect(agents.stdout).toMatch(new RegExp(`support\\s+${deployed.version}\\s+yes\\s+pinned`));
  expect(agents.stdout).not.toContain(earlier.version);

  const dry = await gnl(['migrate', runId, '--dry-run'], { env });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain(`Agent     support: version ${earlier.version} → ${deployed.version}`);
  expect(dry.stdout).toContain('Changes   system');
  expect(dry.stdout).toMatch(/Kept {6}2 finished calls: replayed from the journal, never executed again/);
  expect(dry.stdout).toMatch(/issueRefund \(.+\) · waits/);
  expect(dry.stdout).toContain('Nothing written. To migrate:');

  const unnamed = await gnl(['migrate', runId], { env });
  expect(unnamed.code).toBe(2);
  expect(unnamed.stderr).toContain('say who migrates and why');
  await withJournal(async (storage) => expect((await storage.runs.events(runId)).length).toBe(recorded));

  const migrated = await gnl(['migrate', runId, '--by', 'ops@example.com', '--reason', 'prompt reworded in this deploy'], { env });
  expect(migrated.code, migrated.stderr).toBe(0);
  expect(migrated.stdout).toContain(`Migrated run ${runId} to version ${deployed.version} (by ops@example.com: prompt reworded in this deploy)`);
  const again = await gnl(['migrate', runId, '--by', 'ops@example.com', '--reason', 'twice'], { env });
  expect(again.code).toBe(4);
  expect(again.stderr).toContain('already runs on that version');

  const show = await gnl(['show', runId], { env });
  expect(show.stdout).toContain(`(version ${deployed.version}, migrated from ${earlier.version} by ops@example.com`);
  expect(show.stdout).toContain(`migrated to version ${deployed.version} (from ${earlier.version}) by ops@example.com: prompt reworded in this deploy`);

  const callId = await withJournal(async (storage) => (await storage.runs.getRun(runId))?.pending[0]?.toolCallId as string);
  expect((await gnl(['approve', runId, callId, '--by', 'ops@example.com'], { env })).code).toBe(0);
  const resumed = await gnl(['resume', runId, '--by', 'ops@example.com', '--wait'], { env });
  expect(resumed.code, resumed.stderr).toBe(0);
  const after = service.stats();
  expect({
    tickets: after.tickets.performed - before.tickets.performed,
    refunds: after.refunds.performed - before.refunds.performed,
    emails: after.emails.performed - before.emails.performed,
  }).toEqual({ tickets: 1, refunds: 1, emails: 1 });
  await withJournal(async (storage) => {
    const events = await storage.runs.events(runId);
    const state = new RunState(events);
    expect(state).toMatchObject({ status: 'completed', agentVersion: deployed.version });
    expect(state.migrations).toMatchObject([{ by: 'ops@example.com', fromVersion: earlier.version, toVersion: deployed.version }]);
    expect(events.filter((e) => e.type === 'tool-call-start' && e.toolName === 'createTicket')).toHaveLength(1);
  });
});
