/**
 * `gnl bulk` through gnl's own entry (tests/support/gnl-cli.ts) on real journals (a temp embedded journal, a fresh Postgres database):
 * the dry run changes nothing and records a preview, --yes --preview applies it and reports runs that
 * changed in between, each run's cancel journaled with --by and --reason; bad usage exits 2, an unknown
 * preview 3, a preview applied twice 4.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '@/agents';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { cancelRun, startRun } from '@/lib/executor';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';

interface Journal {
  env: Record<string, string>;
  /** A storage for the test's own reads and writes; closed before gnl runs on the embedded journal (one process per folder). */
  use<T>(work: (storage: Storage) => Promise<T>): Promise<T>;
}

function suite(name: string, open: () => Promise<{ journal: Journal; close(): Promise<void> }>) {
  describe(`gnl bulk [${name}]`, () => {
    let journal: Journal;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ journal, close } = await open());
    }, 300_000);
    afterAll(() => close?.());

    it('dry run, then --yes --preview: each run canceled with who and why; runs canceled in between are reported skipped', async () => {
      const runIds = await journal.use(async (storage) => {
        const ids: string[] = [];
        for (let n = 0; n < 25; n++) ids.push((await startRun({ storage, registry, agent: 'support', input: { prompt: `Customer c_7 question ${n}` } })).runId);
        return ids;
      });
      const text = await gnl(['bulk', 'cancel', '--agent', 'support', '--status', 'running', '--newer-than', '1h', '--by', 'ops@example.com', '--list', '3'], {
        env: journal.env,
      });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('25 run(s) match.');
      expect(text.stdout).toContain('Would change 25; would skip 0.');
      expect(text.stdout).toContain('Would change (first 3):');
      const preview = await gnlJson(['bulk', 'cancel', '--agent', 'support', '--status', 'running', '--by', 'ops@example.com'], { env: journal.env });
      expect(preview.counts).toEqual({ matched: 25, wouldChange: 25, skipped: {} });
      expect(await journal.use(async (storage) => (await storage.runs.getRun(runIds[0] as string))?.status)).toBe('running');

      const between = runIds.slice(0, 2);
      await journal.use(async (storage) => {
        for (const runId of between) await cancelRun(runId, { storage, by: 'bob@example.com', reason: 'by hand' });
      });
      const apply = ['bulk', 'cancel', '--preview', preview.previewId, '--by', 'ops@example.com', '--reason', 'load test leftovers', '--yes'];
      const { applied } = await gnlJson(apply, { env: journal.env });
      expect(applied.counts).toEqual({ changed: 23, skipped: 2, failed: 0 });
      expect(applied.sincePreview).toEqual({ noLongerQualified: 2, newlyMatching: 0 });
      expect(
        applied.results
          .filter((r: { outcome: string }) => r.outcome === 'skipped')
          .map((r: { runId: string }) => r.runId)
          .sort(),
      ).toEqual([...between].sort());
      await journal.use(async (storage) => {
        for (const runId of runIds.slice(2)) {
          const cancels = (await storage.runs.events(runId)).filter((e) => e.type === 'run-cancel');
          expect(cancels).toMatchObject([{ by: 'ops@example.com', reason: 'load test leftovers' }]);
        }
        for (const runId of between)
          expect((await storage.runs.events(runId)).filter((e) => e.type === 'run-cancel')).toMatchObject([{ by: 'bob@example.com' }]);
      });

      const twice = await gnl(apply, { env: journal.env });
      expect(twice.code).toBe(4);
      expect(twice.stderr).toMatch(/^gnl: Preview .* was applied already, by ops@example.com/);
    }, 300_000);

    it('refuses bad usage with exit 2 and an unknown preview with exit 3, changing nothing', async () => {
      const noReason = await gnl(['bulk', 'cancel', '--agent', 'support', '--by', 'ops@example.com', '--yes'], { env: journal.env });
      expect(noReason.code).toBe(2);
      expect(noReason.stderr).toContain('--yes needs --reason');
      const badAge = await gnl(['bulk', 'cancel', '--older-than', 'soon', '--by', 'ops@example.com'], { env: journal.env });
      expect(badAge.code).toBe(2);
      expect(badAge.stderr).toContain('Expected a duration like 90s, 30m, 2h or 7d.');
      const noTool = await gnl(['bulk', 'approve', '--status', 'waiting-approval', '--by', 'ops@example.com'], { env: journal.env });
      expect(noTool.code).toBe(2);
      expect(noTool.stderr).toContain('approve needs the tool');
      const unknown = await gnl(['bulk', 'retry', '--preview', crypto.randomUUID(), '--by', 'ops@example.com', '--reason', 'x', '--yes'], { env: journal.env });
      expect(unknown.code).toBe(3);
      expect(unknown.stderr).toContain('run the dry run first');
    }, 300_000);
  });
}

suite('pglite', async () => {
  const dataDir = tempDataDir();
  return {
    journal: {
      env: { GNL_DATA_DIR: dataDir },
      async use(work) {
        const storage = new PGliteStorage({ dataDir });
        try {
          return await work(storage);
        } finally {
          await storage.close();
        }
      },
    },
    close: async () => undefined,
  };
});

if (DATABASE_URL) {
  suite('postgres', async () => {
    const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_bulk');
    const storage = new PostgresStorage({ connectionString: database.url });
    return {
      journal: { env: { DATABASE_URL: database.url }, use: (work) => work(storage) },
      async close() {
        await storage.close();
        await database.drop();
      },
    };
  });
} else describe.skip('gnl bulk [postgres] (skipped: DATABASE_URL is not set)', () => it('needs DATABASE_URL', () => undefined));
