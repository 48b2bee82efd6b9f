/**
 * Memory from the command line, through gnl's own entry (tests/support/gnl-cli.ts; the crash in a real gnl process) on a temp embedded journal: `gnl memory show` (a
 * resource's working memory versions and its items, and a resource with none), and the demo agent's
 * memory through `gnl start --subject --conversation`, `gnl show` and a SIGKILL mid-run, and `gnl memory
 * export` (audited).
 */
import { expect, it } from 'vitest';
import { addOperator } from '@/lib/accounts';
import { startOutsideService } from '@/lib/demo';
import { PGliteStorage } from '@/lib/durable/storage';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';

it('gnl memory show lists what memory holds about a resource: working memory by version, then the newest items', { timeout: 120_000 }, async () => {
  const dataDir = tempDataDir();
  const storage = new PGliteStorage({ dataDir });
  await storage.memory.add({ resource: 'customer:c_42', key: 'k-1', items: [{ kind: 'fact', text: 'prefers email' }] });
  await storage.memory.add({ resource: 'customer:c_42', key: 'k-2', items: [{ kind: 'message', thread: 't-1', role: 'user', text: 'hello\u202e' }] });
  await storage.memory.writeWorking({ resource: 'customer:c_42', expectedVersion: 0, value: { channel: 'email' }, by: 'agent', key: 'w-1' });
  await storage.memory.writeWorking({ resource: 'customer:c_42', expectedVersion: 1, value: { channel: 'phone' }, by: 'alice', reason: 'asked', key: 'w-2' });
  await storage.close();
  const env = { GNL_DATA_DIR: dataDir };

  const shown = await gnl(['memory', 'show', 'customer:c_42'], { env });
  expect(shown.code, shown.stderr).toBe(0);
  const lines = shown.stdout.trimEnd().split('\n');
  expect(lines[0]).toBe('Working memory of customer:c_42: version 2');
  expect(lines[1]).toMatch(/^ {2}v2 .* by alice: asked {2}\{"channel":"phone"\}$/);
  expect(lines[2]).toMatch(/^ {2}v1 .* by agent {2}\{"channel":"email"\}$/);
  expect(lines[3]).toBe('Items (newest 2):');
  // Untrusted text is shown with its hidden characters escaped.
  expect(lines[4]).toMatch(/message in t-1 \(user\) {2}"hello\\u202e"$/);
  expect(lines[5]).toMatch(/fact {2}"prefers email"$/);
  const data = await gnlJson(['memory', 'show', 'customer:c_42', '--limit', '1'], { env });
  expect(data.items).toHaveLength(1);
  expect(data.working.map((v: { version: number }) => v.version)).toEqual([2, 1]);
  const none = await gnl(['memory', 'show', 'customer:nobody'], { env });
  expect(none.stdout.trim()).toBe('Memory holds nothing about customer:nobody.');
});

it('the demo agent remembers: a customer’s second conversation recalls the first; killed after its ticket, the resumed run is given the same memory and opens one ticket', {
  timeout: 240_000,
}, async () => {
  const service = await startOutsideService();
  const dataDir = tempDataDir();
  // The scripted model and the local words embedding model: no key, no network (lib/demo/demo-embedding.ts).
  const env = { GNL_DATA_DIR: dataDir, GNL_DEMO_SERVICE_URL: service.url, GNL_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
  const recorded = async (runId: string) => {
    const storage = new PGliteStorage({ dataDir });
    try {
      return (await storage.runs.getRun(runId))?.input.memory;
    } finally {
      await storage.close();
    }
  };
  try {
    const first = await gnlJson(
      [
        'start',
        'support',
        '--subject',
        'customer:c_42',
        '--conversation',
        'conv-a',
        '--run-id',
        'mem-a',
        '--prompt',
        'Customer c_42: the blue lamp of order o_17 arrived broken.',
        '--wait',
      ],
      { env },
    );
    expect(first.run.status).toBe('completed');
    expect(first.run.input.memory).toMatchObject({ resource: 'customer:c_42', thread: 'conv-a', messages: [] });

    const second = ['start', 'support', '--subject', 'customer:c_42', '--conversation', 'conv-b', '--run-id', 'mem-b'];
    const crashed = await gnl([...second, '--prompt', 'Customer c_42 again: the blue lamp is still broken.', '--crash-at', 'after-ticket-created', '--wait'], {
      env,
    });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    expect(service.stats().tickets.performed).toBe(2);
    const before = await recorded('mem-b');
    // The first conversation's turn (the customer's words and the answer) is recalled: it shares "blue lamp … broken".
    expect(before?.recalled?.length).toBeGreaterThan(0);
    expect(JSON.stringify(before?.messages)).toContain('the blue lamp of order o_17 arrived broken');

    // Meanwhile memory grows: a fact closer to the question than anything recalled. The resume is given the record, not a fresh read.
    const storage = new PGliteStorage({ dataDir });
    await storage.memory.add({
      resource: 'customer:c_42',
      key: 'later-fact',
      items: [{ kind: 'fact', text: 'Customer c_42 again: the blue lamp is still broken.' }],
    });
    await storage.close();
    const resumed = await gnlJson(['resume', 'mem-b', '--by', 'test', '--wait'], { env });
    expect(resumed.run.status).toBe('completed');
    expect(await recorded('mem-b')).toEqual(before);
    expect(service.stats().tickets.performed).toBe(2); // the ticket opened before the kill was found by its check, not opened again

    const shown = await gnl(['show', 'mem-b'], { env });
    expect(shown.stdout).toMatch(/^Memory {4}of customer:c_42: 0 messages of thread conv-b, \d recalled:$/m);
    expect(shown.stdout).toMatch(/^ {12}-?\d\.\d\d {2}message {2}Customer c_42: the blue lamp of order o_17 arrived broken\.$/m);
  } finally {
    await service.close();
  }
});

it('gnl memory export writes all a resource’s memory as JSON lines, audited under an operator account before anything is read', {
  timeout: 120_000,
}, async () => {
  const dataDir = tempDataDir();
  const storage = new PGliteStorage({ dataDir });
  await addOperator({ storage, login: 'dpo', name: 'Data Officer', password: 'data-officer-password', by: 'test' });
  await storage.memory.add({ resource: 'customer:c_9', key: 'k-1', items: [{ kind: 'fact', text: 'prefers email', embedding: [1, 0] }] });
  await storage.memory.add({ resource: 'customer:c_9', key: 'k-2', items: [{ kind: 'message', thread: 't-1', role: 'user', text: 'hello' }] });
  await storage.memory.writeWorking({ resource: 'customer:c_9', expectedVersion: 0, value: { channel: 'email' }, by: 'agent', key: 'w-1' });
  await storage.memory.add({ resource: 'customer:c_10', key: 'k-3', items: [{ kind: 'fact', text: 'someone else' }] });
  await storage.close();
  const env = { GNL_DATA_DIR: dataDir };

  const refused = await gnl(['memory', 'export', 'customer:c_9', '--by', 'nobody'], { env });
  expect(refused.code).not.toBe(0);
  expect(refused.stdout).toBe('');
  const exported = await gnl(['memory', 'export', 'customer:c_9', '--by', 'dpo'], { env });
  expect(exported.code, exported.stderr).toBe(0);
  const lines = exported.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines[0]).toMatchObject({
    type: 'header',
    format: 'gnl-memory-export',
    version: 1,
    resource: 'customer:c_9',
    exportedBy: 'dpo',
    versions: 1,
    items: 2,
  });
  expect(lines.slice(1)).toEqual([
    expect.objectContaining({ type: 'working', version: 1, value: { channel: 'email' }, updatedBy: 'agent' }),
    expect.objectContaining({ type: 'item', kind: 'fact', text: 'prefers email' }),
    expect.objectContaining({ type: 'item', kind: 'message', thread: 't-1', role: 'user', text: 'hello' }),
  ]);
  expect(exported.stdout).not.toContain('someone else');
  expect(exported.stdout).not.toContain('embedding');

  const audit = await gnlJson(['operators', 'history', 'dpo'], { env });
  expect(audit).toContainEqual(expect.objectContaining({ action: 'exported-memory', by: 'dpo', detail: { resource: 'customer:c_9' } }));
});

it('gnl memory erase deletes all a resource’s memory, audited before, with no journal key; others’ memory stays', { timeout: 120_000 }, async () => {
  const dataDir = tempDataDir();
  const storage = new PGliteStorage({ dataDir });
  await addOperator({ storage, login: 'dpo', name: 'Data Officer', password: 'data-officer-password', by: 'test' });
  await storage.memory.add({ resource: 'customer:c_11', key: 'k-1', items: [{ kind: 'fact', text: 'Qvzzrt lives on Elm Street' }] });
  await storage.memory.writeWorking({ resource: 'customer:c_11', expectedVersion: 0, value: { street: 'Elm' }, by: 'agent', key: 'w-1' });
  await storage.memory.add({ resource: 'customer:c_12', key: 'k-2', items: [{ kind: 'fact', text: 'someone else' }] });
  await storage.close();
  const env = { GNL_DATA_DIR: dataDir, GNL_JOURNAL_KEY: '' };

  const erased = await gnl(['memory', 'erase', 'customer:c_11', '--by', 'dpo', '--reason', 'deletion request #77'], { env });
  expect(erased.code, erased.stderr).toBe(0);
  expect(erased.stdout.trim()).toBe('Erased the memory of customer:c_11: 1 items and 1 working memory versions, by dpo.');
  expect((await gnl(['memory', 'show', 'customer:c_11'], { env })).stdout.trim()).toBe('Memory holds nothing about customer:c_11.');
  expect((await gnl(['memory', 'show', 'customer:c_12'], { env })).stdout).toContain('someone else');
  const audit = await gnlJson(['operators', 'history', 'dpo'], { env });
  expect(audit).toContainEqual(
    expect.objectContaining({ action: 'erased-memory', by: 'dpo', detail: { resource: 'customer:c_11', reason: 'deletion request #77' } }),
  );
  const again = await gnl(['memory', 'erase', 'customer:c_11', '--by', 'dpo', '--reason', 'again'], { env });
  expect(again.stdout.trim()).toBe('Memory held nothing about customer:c_11: nothing was erased (the request is in the audit).');
});
