/**
 * `gnl resume --at` through gnl's own entry (tests/support/gnl-cli.ts) on a temp embedded journal, and `gnl show`'s attempts and
 * timers lines: the scheduled resume is journaled (who, why, when), shown as due, refused with one line
 * for a time that is no instant, and replaced by a resume asked for at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { type RecordedEvent, RunState } from '@/lib/durable';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';
import { timerLines } from './run-view';

const REFUND = 'Customer c_42 wants a refund for order o_17';

describe('gnl resume --at [pglite]', { timeout: 300_000 }, () => {
  let service: OutsideService;
  let env: Record<string, string>;
  beforeAll(async () => {
    service = await startOutsideService();
    env = { GNL_DEMO_SERVICE_URL: service.url, GNL_DATA_DIR: tempDataDir() };
  });
  afterAll(() => service.close());
  const run = (args: string[]) => gnl(args, { env });

  it('schedules the next invocation, journaled with who, why and when; show says when it is due; a resume now replaces it', async () => {
    const id = `cli-at:${Date.now()}`;
    const started = await gnlJson(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait'], { env });
    const call = started.run.pending[0].toolCallId as string;
    expect((await run(['approve', id, call, '--by', 'alice@example.com'])).code).toBe(0);

    const at = new Date(Date.now() + 3_600_000);
    const scheduled = await run(['resume', id, '--at', at.toISOString(), '--by', 'alice@example.com', '--reason', 'after the cut-off']);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(scheduled.stdout).toContain(
      `Resume of run ${id} scheduled for ${at.toISOString()} by alice@example.com: after the cut-off (it is waiting-approval).`,
    );
    const shown = await run(['show', id]);
    expect(shown.stdout).toContain(
      `Due       ${at.toISOString().slice(0, 19).replace('T', ' ')} UTC · resume scheduled by alice@example.com: after the cut-off`,
    );
    expect(shown.stdout).toMatch(/Executor {2}queued: not before \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(shown.stdout).toMatch(/run-resume-request\s+resume scheduled for .* by alice@example\.com: after the cut-off/);

    for (const bad of [
      ['--at', 'tomorrow'],
      ['--at', '2026-12-02T09:00:00'],
      ['--at', at.toISOString(), '--wait'],
    ]) {
      const refused = await run(['resume', id, ...bad, '--by', 'alice@example.com']);
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(/^gnl: .*(ISO 8601|--wait)/);
    }

    const now = await run(['resume', id, '--by', 'alice@example.com', '--wait']);
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout).toContain(`Run ${id} is completed.`);
    const final = await gnlJson(['show', id], { env });
    expect(final.events.filter((e: { type: string }) => e.type === 'run-resume-request')).toMatchObject([
      { by: 'alice@example.com', reason: 'after the cut-off', resumeAt: at.toISOString() },
      { by: 'alice@example.com' },
    ]);
    expect((await run(['show', id])).stdout).not.toContain('Due       ');
    expect(service.stats().refunds.performed).toBe(1);
  });

  it('show prints the failed attempts and the next one from the projection', () => {
    const events: RecordedEvent[] = [
      { type: 'run-fail', error: { name: 'AI_APICallError', message: 'Service Unavailable' }, seq: 1, at: new Date('2026-12-02T09:00:00Z') },
      {
        type: 'run-retry',
        by: 'worker-1',
        attempt: 2,
        attempts: 5,
        error: { name: 'AI_APICallError', message: 'Service Unavailable' },
        retryAt: '2026-12-02T09:00:20.000Z',
        seq: 2,
        at: new Date('2026-12-02T09:00:00Z'),
      },
    ];
    expect(timerLines(new RunState(events))).toEqual([
      'Attempts  2 of 5 failed · next at 2026-12-02 09:00:20 UTC · last error AI_APICallError: Service Unavailable',
      'Due       2026-12-02 09:00:20 UTC · attempt 3 of 5',
    ]);
    const exhausted = new RunState([...events.slice(0, 1), { ...events[1], attempt: 5, retryAt: undefined } as RecordedEvent]);
    expect(timerLines(exhausted)).toEqual([
      'Attempts  5 of 5 failed · no attempts left: waiting for a person (gnl resume starts them afresh) · last error AI_APICallError: Service Unavailable',
    ]);
  });
});
