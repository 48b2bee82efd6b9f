/**
 * The runs page's marks (run-marks-sql.ts) on both real journals, for runs made by runDurable itself:
 * each mark as expected, and interrupted / waited as the projection's invocations say (run-invocations.ts).
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { exportRun, exportText, parseRunExport, planImport, runDurable } from '@/lib/durable';
import { addToInvocations, NO_INVOCATIONS } from '@/lib/durable/projection';
import { describeEachJournal } from '@/tests/support/journals';
import { leaveRefundInFlight, refundAgent } from '@/tests/support/refund-agent';
import { type SearchDb, searchRuns } from './run-search';

describeEachJournal('runs page marks', (target) => {
  const { storage, journal } = target.open();
  const prefix = `marks-${randomUUID().slice(0, 8)}-`;

  async function marksOf(runId: string) {
    const [row] = await searchRuns((await storage.database()) as unknown as SearchDb, { q: runId, limit: 1 });
    expect(row?.run_id).toBe(runId);
    const invocations = addToInvocations(NO_INVOCATIONS, await journal.events(runId)).invocations;
    // The SQL and the projection say the same.
    expect(row?.interrupted).toBe(invocations.some((i) => i.began === 'after-interruption'));
    expect(row?.waited).toBe(invocations.some((i) => i.end?.how === 'suspended'));
    return { interrupted: row?.interrupted, waited: row?.waited, decided: row?.decided };
  }

  it('an approved refund: waited for a person and decided by one, not interrupted', async () => {
    const runId = `${prefix}approved`;
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await call();
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    expect((await call()).status).toBe('completed');
    expect(await marksOf(runId)).toEqual({ interrupted: false, waited: true, decided: true });
  });

  it('a refund left in flight by a killed process: interrupted, then blocked (waited), nobody decided yet', async () => {
    const runId = `${prefix}crashed`;
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }).catch((error: unknown) => error);
    expect(await marksOf(runId)).toEqual({ interrupted: true, waited: true, decided: false });
  });

  it("a fork: the parent's waits, decisions and invocations it copied are not its own marks, and its first invocation is no interruption", async () => {
    const parentId = `${prefix}fork-parent`;
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = () => runDurable({ runId: parentId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await call();
    await journal.approve({ runId: parentId, toolCallId: 'call-refund', by: 'alice@acme' });
    expect((await call()).status).toBe('completed');
    expect(await marksOf(parentId)).toEqual({ interrupted: false, waited: true, decided: true });

    // The fork's run-forked on the parent does not lengthen the parent's duration on the runs page.
    const [parentRow] = await searchRuns((await storage.database()) as unknown as SearchDb, { q: parentId, limit: 1 });
    const workedUntil = new Date(parentRow?.worked_until as Date | string).getTime();
    const childId = `${prefix}fork-child`;
    await journal.fork({ runId: parentId, childRunId: childId, atStep: 2, by: 'alice@acme', reason: 'ask again' });
    const [parentAfter] = await searchRuns((await storage.database()) as unknown as SearchDb, { q: parentId, limit: 1 });
    expect(new Date(parentAfter?.worked_until as Date | string).getTime()).toBe(workedUntil);
    expect((await journal.events(parentId)).at(-1)?.type).toBe('run-forked');
    const copied = (await journal.events(childId)).map((e) => e.type);
    expect(copied).toEqual(expect.arrayContaining(['run-start', 'run-suspend', 'tool-approval-response', 'run-resume']));
    expect(await marksOf(childId)).toEqual({ interrupted: false, waited: false, decided: false });
    // Its executor's first invocation begins with a run-resume from 'running' right after the copy: no interruption.
    const hold = await journal.hold(childId);
    await hold.append([{ type: 'run-resume', fromStatus: 'running' }]);
    await hold.release();
    expect(await marksOf(childId)).toEqual({ interrupted: false, waited: false, decided: false });
    const invocations = addToInvocations(NO_INVOCATIONS, await journal.events(childId)).invocations;
    expect(invocations.map((i) => i.began)).toEqual(['first']);
  });

  it('a run queued first (run-start, then its first invocation): not interrupted, no marks', async () => {
    const runId = `${prefix}queued`;
    const hold = await journal.hold(runId);
    await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'] });
    await hold.release();
    const agent = refundAgent({ sideEffect: true });
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('completed');
    expect((await journal.events(runId)).map((e) => e.type).slice(0, 2)).toEqual(['run-start', 'run-resume']);
    expect(await marksOf(runId)).toEqual({ interrupted: false, waited: false, decided: false });
  });

  it('an imported run: marked imported, with the marks its history earned where it was recorded', async () => {
    const runId = `${prefix}to-export`;
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('waiting-approval');
    const parsed = parseRunExport(exportText(await exportRun({ journal, runId })));
    await journal.importRun(planImport({ parsed, by: 'alice@acme', runId: `${prefix}imported` }));
    const [row] = await searchRuns((await storage.database()) as unknown as SearchDb, { q: `${prefix}imported`, limit: 1 });
    expect(row).toMatchObject({ run_id: `${prefix}imported`, waited: true, imported: true, status: 'canceled' });
    const [original] = await searchRuns((await storage.database()) as unknown as SearchDb, { q: runId, limit: 1 });
    expect(original).toMatchObject({ run_id: runId, imported: false });
  });
});
