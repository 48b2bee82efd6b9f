/**
 * Editing working memory from the Studio (memory-actions.ts) on the journal storageFromEnv gives (PGlite
 * here, Postgres in CI): audited in gnl.operator_audit before the write, written as the next version with
 * who and why; the same form's second click writes nothing more; a version written meanwhile is refused
 * with the current one; an account that does not exist writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addOperator, operatorAuditTrail } from '@/lib/accounts';
import { JournalDataError, REDACTED } from '@/lib/durable';
import { loadResourceMemory } from '../reads/memory';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { editWorkingMemory } from './memory-actions';

const login = `mem-${randomUUID().slice(0, 8)}`;
const resource = `customer:studio-edit-${randomUUID()}`;
let storage: Storage;

beforeAll(async () => {
  process.env.GNL_DATA_DIR = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-studio-memory-')), 'data');
  storage = storageFromEnv();
  await addOperator({ storage, login, name: 'Mem Editor', password: 'mem-editor-password-1', by: 'test' });
  await storage.memory.writeWorking({ resource, expectedVersion: 0, value: { tier: 'silver' }, by: 'agent', key: `${resource}-v1` });
}, 300_000);

afterAll(async () => {
  await storage.close();
});

it('writes the next version in the operator’s name with the reason, audited; the same form again writes nothing more', async () => {
  const requestId = randomUUID();
  const edit = { resource, expectedVersion: 1, value: { tier: 'gold' }, reason: 'upgraded after the complaint', by: login, requestId };
  expect(await editWorkingMemory(edit)).toEqual({ ok: true, version: 2, replayed: false });
  expect(await editWorkingMemory(edit)).toEqual({ ok: true, version: 2, replayed: true });
  expect(await storage.memory.working(resource)).toMatchObject({
    version: 2,
    value: { tier: 'gold' },
    updatedBy: login,
    reason: 'upgraded after the complaint',
  });
  expect((await storage.memory.workingHistory(resource)).map((v) => v.version)).toEqual([2, 1]);
  const audit = (await operatorAuditTrail({ storage, login })).filter((entry) => entry.action === 'edited-memory');
  expect(audit.length).toBeGreaterThanOrEqual(1);
  expect(audit[0]).toMatchObject({ by: login, detail: { resource, expectedVersion: 1, reason: 'upgraded after the complaint' } });
});

it('an edit of a version replaced meanwhile is refused with the current version, never written over it', async () => {
  const requestId = randomUUID();
  const stale = await editWorkingMemory({ resource, expectedVersion: 1, value: { tier: 'bronze' }, reason: 'stale tab', by: login, requestId });
  expect(stale).toMatchObject({ ok: false, kind: 'changed', current: { version: 2, updatedBy: login } });
  // The audit says so: the request, then its refusal, both naming the request.
  const audit = (await operatorAuditTrail({ storage, login })).filter((entry) => (entry.detail as { requestId?: string }).requestId === requestId);
  expect(audit.map((entry) => entry.action).sort()).toEqual(['edited-memory', 'memory-edit-refused']);
  expect(audit.find((entry) => entry.action === 'memory-edit-refused')?.detail).toMatchObject({ resource, expectedVersion: 1, currentVersion: 2 });
  expect((stale as { message: string }).message).toBe(`Not saved: version 2 was written meanwhile by ${login}. Read it, then edit again.`);
  expect(await storage.memory.working(resource)).toMatchObject({ version: 2, value: { tier: 'gold' } });
});

it('an account that does not exist edits nothing', async () => {
  const refused = await editWorkingMemory({ resource, expectedVersion: 2, value: { tier: 'x' }, reason: 'r', by: 'nobody-here', requestId: randomUUID() });
  expect(refused).toMatchObject({ ok: false, kind: 'invalid' });
  expect(await storage.memory.working(resource)).toMatchObject({ version: 2 });
});

it('a journal fault is the server’s error, logged with its cause, never “check the form”', async () => {
  const memory = storageFromEnv().memory;
  const writeWorking = memory.writeWorking;
  const logged: unknown[] = [];
  const error = console.error;
  memory.writeWorking = async () => {
    throw new JournalDataError('a stored version cannot be read back');
  };
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    const failed = await editWorkingMemory({ resource, expectedVersion: 2, value: { tier: 'x' }, reason: 'r', by: login, requestId: randomUUID() });
    expect(failed).toMatchObject({ ok: false, kind: 'error' });
    expect(logged).toHaveLength(1);
  } finally {
    memory.writeWorking = writeWorking;
    console.error = error;
  }
});

it('the page gets secrets redacted, for every role; an edit that leaves a placeholder keeps the stored secret', async () => {
  const secretive = `customer:studio-secret-${randomUUID()}`;
  await storage.memory.writeWorking({
    resource: secretive,
    expectedVersion: 0,
    value: { tier: 'gold', password: 'hunter2-hunter2', crm: { apiKey: 'sk-live-0123456789abcdefghij' } },
    by: 'agent',
    key: `${secretive}-v1`,
  });
  await storage.memory.add({ resource: secretive, key: `${secretive}-fact`, items: [{ kind: 'fact', text: 'sk-live-0123456789abcdefghij' }] });
  const shown = await loadResourceMemory(secretive);
  expect(shown?.versions[0]?.value).toEqual({ tier: 'gold', password: REDACTED, crm: { apiKey: REDACTED } });
  expect(JSON.stringify(shown)).not.toContain('hunter2');
  expect(JSON.stringify(shown)).not.toContain('sk-live-');
  // The operator changes the tier and leaves the redacted fields as the page showed them.
  const edited = await editWorkingMemory({
    resource: secretive,
    expectedVersion: 1,
    value: { tier: 'platinum', password: REDACTED, crm: { apiKey: REDACTED } },
    reason: 'upgraded',
    by: login,
    requestId: randomUUID(),
  });
  expect(edited).toMatchObject({ ok: true, version: 2 });
  expect((await storage.memory.working(secretive))?.value).toEqual({
    tier: 'platinum',
    password: 'hunter2-hunter2',
    crm: { apiKey: 'sk-live-0123456789abcdefghij' },
  });
});
