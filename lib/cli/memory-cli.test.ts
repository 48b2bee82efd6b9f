/** `gnl memory show` as a real gnl process on a temp embedded journal: a resource's working memory versions and its items, and a resource with none. */
import { expect, it } from 'vitest';
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
