/**
 * `gnl export` and `gnl import` through gnl's own entry (tests/support/gnl-cli.ts), on a journal that seals secrets with GNL_JOURNAL_KEY:
 * the export redacts by default; `--reveal-secrets` needs the key and an enabled operator account and is
 * audited; import refuses a taken id, takes `--as`, brings a redacted export in as evidence (canceled),
 * and refuses a bad line by its number with nothing written.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addOperator } from '@/lib/accounts';
import { gnlTool, REDACTED, runDurable } from '@/lib/durable';
import { PGliteStorage, PostgresStorage, secretsFromEnv } from '@/lib/durable/storage';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnl } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';

const API_KEY = 'sk-proj-Ex1Xq81mN0pLkR7sT2vW9xY4bC6dE3fG';
const GNL_JOURNAL_KEY = randomBytes(32).toString('base64');

async function seed(storage: PGliteStorage | PostgresStorage, runId: string) {
  const charge = gnlTool(
    tool({ inputSchema: z.object({ apiKey: z.string(), amount: z.number() }), needsApproval: true, execute: async () => ({ ok: true }) }),
    { sideEffect: true, idempotency: 'args' },
  );
  const scripted = scriptedModel(() => ({ toolCalls: [{ toolCallId: 'call-charge', toolName: 'charge', input: { apiKey: API_KEY, amount: 40 } }] }));
  expect((await runDurable({ runId, journal: storage.runs, model: scripted.model, tools: { charge }, prompt: 'Charge 40' })).status).toBe('waiting-approval');
  await addOperator({ storage, login: 'alice@acme.test', name: 'Alice', password: 'correct horse battery' });
}

for (const kind of ['pglite', 'postgres'] as const) {
  const available = kind === 'pglite' || Boolean(DATABASE_URL);
  (available ? describe : describe.skip)(`gnl export / import [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`, { timeout: 300_000 }, () => {
    const runId = `cli-export:${randomUUID()}`;
    const dataDir = kind === 'pglite' ? tempDataDir() : undefined;
    const files = mkdtempSync(path.join(tmpdir(), 'gnl-export-'));
    // Postgres: a database of its own, so the run sealed with this suite's throwaway key never reaches another suite's listings.
    let database: { url: string; drop(): Promise<void> } | undefined;
    let env: Record<string, string | undefined> = {};
    const run = (args: string[], extra: Record<string, string | undefined> = {}) => gnl(args, { env: { ...env, ...extra } });

    beforeAll(async () => {
      if (!dataDir) database = await createFreshDatabase(DATABASE_URL as string, 'gnl_cli_export');
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

    it('export writes a header and the events to stdout, the apiKey redacted; an unknown run is exit 3', async () => {
      const result = await run(['export', runId]);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        format: 'gnl-run-export',
        version: 1,
        runId,
        eventCount: 4,
        redacted: true,
        status: 'waiting-approval',
      });
      expect(lines.slice(1).map((line) => JSON.parse(line).type)).toEqual(['run-start', 'model-step', 'tool-approval-request', 'run-suspend']);
      expect(result.stdout).not.toContain(API_KEY);
      expect(result.stdout).toContain(REDACTED);

      const missing = await run(['export', `${runId}-nope`]);
      expect(missing.code).toBe(3);
      expect(missing.stderr).toMatch(/^gnl: No run ".*-nope" in this journal/);
    });

    it('--reveal-secrets needs --by an enabled operator and the journal key, and is audited before it is written', async () => {
      const out = path.join(files, 'revealed.jsonl');
      expect((await run(['export', runId, '--reveal-secrets', '--out', out])).code).toBe(2);
      const noKey = await run(['export', runId, '--reveal-secrets', '--by', 'alice@acme.test', '--out', out], { GNL_JOURNAL_KEY: '' });
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('GNL_JOURNAL_KEY');
      expect((await run(['export', runId, '--reveal-secrets', '--by', 'mallory@acme.test', '--out', out])).code).toBe(3);

      const revealed = await run(['export', runId, '--reveal-secrets', '--by', 'alice@acme.test', '--out', out, '--json']);
      expect(revealed.code, revealed.stderr).toBe(0);
      expect(JSON.parse(revealed.stdout)).toMatchObject({ out, header: { runId, redacted: false } });
      expect(readFileSync(out, 'utf8')).toContain(API_KEY);
      expect(statSync(out).mode & 0o777).toBe(0o600);
      expect((await run(['export', runId, '--out', out])).code).toBe(4); // never overwrites

      const history = await run(['operators', 'history', 'alice@acme.test', '--json']);
      expect(JSON.parse(history.stdout)).toEqual(
        expect.arrayContaining([expect.objectContaining({ action: 'revealed-export', by: 'alice@acme.test', detail: { runId } })]),
      );
    });

    it('import refuses the taken id, takes --as; a revealed export stays waiting, a redacted one comes in canceled', async () => {
      const revealedFile = path.join(files, 'import-revealed.jsonl');
      expect((await run(['export', runId, '--reveal-secrets', '--by', 'alice@acme.test', '--out', revealedFile])).code).toBe(0);
      const taken = await run(['import', revealedFile]);
      expect(taken.code).toBe(4);
      expect(taken.stderr).toContain('--as');

      const moved = `${runId}-moved`;
      const imported = await run(['import', revealedFile, '--as', moved, '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ runId: moved, exportedAs: runId, evidence: false, run: { status: 'waiting-approval' } });

      const redactedFile = path.join(files, 'import-redacted.jsonl');
      expect((await run(['export', runId, '--out', redactedFile])).code).toBe(0);
      const evidence = `${runId}-evidence`;
      const asEvidence = await run(['import', redactedFile, '--as', evidence, '--by', 'bob@acme.test']);
      expect(asEvidence.code, asEvidence.stderr).toBe(0);
      expect(asEvidence.stdout).toContain('evidence only');
      const shown = JSON.parse((await run(['show', evidence, '--json'])).stdout);
      expect(shown.run).toMatchObject({ status: 'canceled' });
      expect((await run(['resume', evidence, '--by', 'bob@acme.test'])).code).toBe(4);
    });

    it('a bad line is exit 2 naming the line, and nothing is written', async () => {
      const lines = (await run(['export', runId])).stdout.trimEnd().split('\n');
      const bad = path.join(files, 'bad.jsonl');
      writeFileSync(bad, `${lines.map((line, i) => (i === 2 ? '{"seq": 2, "oops"' : line)).join('\n')}\n`);
      const result = await run(['import', bad, '--as', `${runId}-bad`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^gnl: line 3: not JSON/);
      expect((await run(['show', `${runId}-bad`])).code).toBe(3);
    });
  });
}
