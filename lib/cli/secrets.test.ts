/**
 * The command line never prints a secret: a real `gnl` process shows a run whose tool arguments hold an
 * apiKey (sealed in the journal with GNL_JOURNAL_KEY), as text and as --json, with "•••• redacted" in
 * its place; without the key it fails in one line naming the field instead of showing anything.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gnlTool, REDACTED, runDurable } from '@/lib/durable';
import { PGliteStorage, PostgresStorage, secretsFromEnv } from '@/lib/durable/storage';
import { gnl } from '@/tests/support/gnl-cli';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';

const API_KEY = 'sk-proj-Cl1Xq81mN0pLkR7sT2vW9xY4bC6dE3fG';
const PASSWORD = 'hunter2-but-longer-77';
const GNL_JOURNAL_KEY = randomBytes(32).toString('base64');

async function seed(storage: PGliteStorage | PostgresStorage, runId: string) {
  const charge = gnlTool(
    tool({
      inputSchema: z.object({ apiKey: z.string(), amount: z.number(), login: z.object({ user: z.string(), password: z.string() }) }),
      needsApproval: true,
      execute: async () => ({ ok: true }),
    }),
    { sideEffect: true, idempotency: 'args' },
  );
  const scripted = scriptedModel(() => ({
    toolCalls: [{ toolCallId: 'call-charge', toolName: 'charge', input: { apiKey: API_KEY, amount: 40, login: { user: 'ann', password: PASSWORD } } }],
  }));
  const result = await runDurable({ runId, journal: storage.runs, model: scripted.model, tools: { charge }, prompt: 'Charge 40' });
  expect(result.status).toBe('waiting-approval');
}

for (const kind of ['pglite', 'postgres'] as const) {
  const available = kind === 'pglite' || Boolean(DATABASE_URL);
  (available ? describe : describe.skip)(
    `gnl prints no secret [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`,
    { timeout: 300_000 },
    () => {
      const runId = `cli-secrets:${randomUUID()}`;
      const dataDir = kind === 'pglite' ? tempDataDir() : undefined;
      // Postgres: a database of its own, so the run sealed with this suite's throwaway key never reaches another suite's listings.
      let database: { url: string; drop(): Promise<void> } | undefined;
      let env: Record<string, string | undefined> = {};

      beforeAll(async () => {
        if (!dataDir) database = await createFreshDatabase(DATABASE_URL as string, 'gnl_cli_secrets');
        env = { ...(dataDir ? { GNL_DATA_DIR: dataDir } : { DATABASE_URL: database?.url }), GNL_JOURNAL_KEY };
        const secrets = secretsFromEnv({ GNL_JOURNAL_KEY });
        const storage = dataDir ? new PGliteStorage({ dataDir, secrets }) : new PostgresStorage({ connectionString: database?.url as string, secrets });
        try {
          await seed(storage, runId);
        } finally {
          await storage.close();
        }
      });
      afterAll(async () => {
        await database?.drop();
      });

      it('show (text and --json) and list --json redact the apiKey, the password and the model step arguments', async () => {
        for (const args of [
          ['show', runId],
          ['show', runId, '--full'],
          ['show', runId, '--json'],
          ['list', '--json', '--limit', '500'],
        ]) {
          const result = await gnl(args, { env });
          expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
          expect(result.stdout, args.join(' ')).not.toContain(API_KEY);
          expect(result.stdout, args.join(' ')).not.toContain(PASSWORD);
          expect(result.stdout, args.join(' ')).not.toContain('$gnl:enc');
          if (args[0] === 'show') {
            expect(result.stdout, args.join(' ')).toContain(REDACTED);
            expect(result.stdout).toContain(args.includes('--json') ? '"amount": 40' : '"amount":40');
          }
        }
      });

      it('without the journal key, show fails in one line naming the encrypted field', async () => {
        const result = await gnl(['show', runId], { env: { ...env, GNL_JOURNAL_KEY: undefined } });
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(
          /(apiKey|password) is encrypted in the journal \(key [0-9a-f]{8}\) and no journal key is configured: set GNL_JOURNAL_KEY/,
        );
        expect(result.stdout + result.stderr).not.toContain(API_KEY);
      });
    },
  );
}
