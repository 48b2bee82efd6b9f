/**
 * `gnl approve --args`: edit, then approve, through gnl's own entry (tests/support/gnl-cli.ts) on a temp embedded journal against the
 * demo's real outside service. The arguments are checked against the tool's input schema (every field at
 * fault named on one line, nothing recorded); approved, the refund the service performs is the edited one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';

const REFUND = 'Customer c_42 wants a refund for order o_17';

describe('gnl approve --args [pglite]', { timeout: 300_000 }, () => {
  let service: OutsideService;
  let env: Record<string, string>;
  beforeAll(async () => {
    service = await startOutsideService();
    env = { GNL_DEMO_SERVICE_URL: service.url, GNL_DATA_DIR: tempDataDir() };
  });
  afterAll(() => service.close());
  const run = (args: string[]) => gnl(args, { env });

  it('refuses arguments that do not fit the input schema, naming each field; approved, the edited refund is the one performed, once', async () => {
    const id = `cli-args:${Date.now()}`;
    const started = await gnlJson(['start', 'support', '--prompt', REFUND, '--run-id', id, '--wait'], { env });
    const pending = started.run.pending[0] as { toolCallId: string; input: Record<string, unknown> };
    const eventsBefore = (await gnlJson(['show', id], { env })).events.length;

    const bad = await run(['approve', id, pending.toolCallId, '--by', 'alice@example.com', '--args', JSON.stringify({ orderId: 'o_17', amount: -3 })]);
    expect(bad.code, bad.stdout).not.toBe(0);
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('customerId');
    expect(bad.stderr).toContain('amount');
    expect((await gnlJson(['show', id], { env })).events.length).toBe(eventsBefore);

    const edited = { ...pending.input, amount: 15 };
    const approved = await run(['approve', id, pending.toolCallId, '--by', 'alice@example.com', '--reason', 'half now', '--args', JSON.stringify(edited)]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('Approved with changed arguments');
    expect((await run(['resume', id, '--by', 'alice@example.com', '--wait'])).code).toBe(0);

    // The outside service's own record: one refund, of the approved amount.
    expect(service.stats().refunds.performed).toBe(1);
    expect(service.records('refunds')).toMatchObject([{ orderId: 'o_17', amount: 15 }]);
    const shown = await gnlJson(['show', id], { env });
    expect(shown.events.find((e: { type: string }) => e.type === 'tool-approval-response')).toMatchObject({
      by: 'alice@example.com',
      approvedInput: edited,
    });
    expect(shown.events.find((e: { type: string }) => e.type === 'tool-approval-request')).toMatchObject({ input: pending.input });
  });
});
