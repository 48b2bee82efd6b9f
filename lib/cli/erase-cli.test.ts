/**
 * `gnl erase` and `gnl erasures` through gnl's own entry (tests/support/gnl-cli.ts), on a journal with run keys on (GNL_JOURNAL_KEY and
 * GNL_RUN_KEYS=on), embedded and on a fresh Postgres database: an unknown operator erases nothing; an
 * enabled one erases a subject's ended run (its data reads as erased in `gnl show`, its shape stays),
 * is refused for a run that still waits (exit 4), and the log names who erased what and why.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addOperator } from '@/lib/accounts';
import { ERASED_TEXT, gnlTool, runDurable } from '@/lib/durable';
import { PGliteStorage, PostgresStorage, secretsFromEnv } from '@/lib/durable/storage';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnl } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';

const NAME = 'Grace Brewster Hopperfield';
const KEYS = { GNL_JOURNAL_KEY: randomBytes(32).toString('base64'), GNL_RUN_KEYS: 'on' };

for (const kind of ['pglite', 'postgres'] as const) {
  const available = kind === 'pglite' || Boolean(DATABASE_URL);
  (available ? describe : describe.skip)(`gnl erase [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`, { timeout: 300_000 }, () => {
    const subject = `customer:${randomUUID()}`;
    const ended = `cli-erase:${randomUUID()}`;
    const waiting = `cli-erase-waiting:${randomUUID()}`;
    const dataDir = kind === 'pglite' ? tempDataDir() : undefined;
    let database: { url: string; drop(): Promise<void> } | undefined;
    let env: Record<string, string | undefined> = {};
    const run = (args: string[]) => gnl(args, { env });

    beforeAll(async () => {
      if (!dataDir) database = await createFreshDatabase(DATABASE_URL as string, 'gnl_cli_erase');
      env = { ...(dataDir ? { GNL_DATA_DIR: dataDir } : { DATABASE_URL: database?.url }), ...KEYS };
      const secrets = secretsFromEnv(KEYS);
      const storage = dataDir ? new PGliteStorage({ dataDir, secrets }) : new PostgresStorage({ connectionString: database?.url as string, secrets });
      try {
        const answer = scriptedModel(() => ({ text: `Your address was changed, ${NAME}.` }));
        expect(
          (await runDurable({ runId: ended, journal: storage.runs, model: answer.model, prompt: `I am ${NAME}: change my address.`, subject })).status,
        ).toBe('completed');
        const refund = gnlTool(tool({ inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: async () => ({ ok: true }) }), {
          sideEffect: true,
        });
        const asks = scriptedModel(() => ({ toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { amount: 40 } }] }));
        const paused = await runDurable({ runId: waiting, journal: storage.runs, model: asks.model, tools: { refund }, prompt: `Refund ${NAME}`, subject });
        expect(paused.status).toBe('waiting-approval');
        await addOperator({ storage, login: 'dpo@acme.test', name: 'Data protection', password: 'correct horse battery' });
      } finally {
        await storage.close();
      }
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('an unknown operator erases nothing; the operator erases the ended run, shown as erased; the waiting one is refused (exit 4); the log says who and why', async () => {
      const stranger = await run(['erase', '--subject', subject, '--by', 'mallory@acme.test', '--reason', 'request #7']);
      expect(stranger.code).toBe(3);
      expect((await run(['erasures', '--json'])).stdout.trim()).toBe('[]');

      const erased = await run(['erase', '--subject', subject, '--by', 'dpo@acme.test', '--reason', 'GDPR request #7', '--json']);
      expect(erased.code, erased.stderr).toBe(4); // one of the two still waits for a person
      expect(JSON.parse(erased.stdout)).toEqual([
        { runId: ended, outcome: 'erased', at: expect.any(String) },
        { runId: waiting, outcome: 'refused', why: expect.stringContaining('waiting-approval') },
      ]);

      const shown = await run(['show', ended]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/Erased {4}.* by dpo@acme\.test: GDPR request #7/);
      expect(shown.stdout).toContain(ERASED_TEXT);
      expect(shown.stdout).not.toContain('Hopperfield');
      // The waiting run is untouched: readable, still waiting.
      const still = await run(['show', waiting]);
      expect(still.stdout).toContain('Hopperfield');

      const log = JSON.parse((await run(['erasures', '--json'])).stdout) as { runId: string; by: string; reason: string; subject: string }[];
      expect(log.map((e) => [e.runId, e.by, e.reason, e.subject])).toEqual([[ended, 'dpo@acme.test', 'GDPR request #7', subject]]);
      const usage = await run(['erase', ended, '--subject', subject, '--by', 'dpo@acme.test', '--reason', 'x']);
      expect(usage.code).toBe(2);
    });
  });
}
