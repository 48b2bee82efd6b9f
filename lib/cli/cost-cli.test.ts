/**
 * `gnl show`'s cost, as a real gnl process on a real embedded journal: the run's model steps appended
 * through a hold like any recorded run (a priced model and the scripted demo model), then read by gnl
 * with the built-in price table, with a GNL_PRICES_FILE, and with a bad one.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir, uniqueRunId } from '@/tests/support/journals';

const mini = { inputTokens: { total: 1200, noCache: 1000, cacheRead: 200 }, outputTokens: { total: 300 } };
const scripted = { inputTokens: { total: 50, noCache: 50 }, outputTokens: { total: 10 } };
const step = (n: number, provider: string, modelId: string, usage: unknown): JournalEvent => ({
  type: 'model-step',
  step: n,
  provider,
  modelId,
  latencyMs: 5,
  result: { content: [{ type: 'text', text: 'ok' }], finishReason: 'stop', usage },
});

describe('gnl show: cost', { timeout: 120_000 }, () => {
  const dataDir = tempDataDir();
  const env = { GNL_DATA_DIR: dataDir };
  const runId = uniqueRunId('cost');
  const dir = mkdtempSync(path.join(tmpdir(), 'gnl-cost-cli-'));

  beforeAll(async () => {
    const storage = new PGliteStorage({ dataDir });
    const hold = await storage.runs.hold(runId);
    await hold.create({ prompt: 'what does it cost', modelId: 'gpt-4o-mini', provider: 'openai.responses', toolNames: [] });
    await hold.append([
      step(0, 'openai.responses', 'gpt-4o-mini', mini),
      step(1, 'gnl-demo', 'scripted-support-v1\u202e', scripted),
      step(2, 'openai.responses', 'gpt-4o-mini', mini),
    ]);
    await hold.release();
    await storage.close();
  }, 120_000);

  it('prints the known part, the unpriced steps by model (escaped), and the day the prices were taken', async () => {
    const shown = await gnl(['show', runId], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Cost      ≥ $0.000690 (1 step unpriced) · prices taken on 2025-06-01\n');
    expect(shown.stdout).toContain('          unpriced: gnl-demo/scripted-support-v1\\u202e: no price in the table (1 step)\n');
  });

  it('--json gives the cost per step and in total, null where a step has no price', async () => {
    const { cost } = await gnlJson(['show', runId], { env });
    expect(cost).toEqual({
      usd: 0.00069,
      text: '≥ $0.000690 (1 step unpriced)',
      pricedSteps: 2,
      unpricedSteps: 1,
      unpriced: [{ provider: 'gnl-demo', modelId: 'scripted-support-v1\u202e', steps: 1, reason: 'no-price' }],
      pricesTakenOn: ['2025-06-01'],
      steps: [
        { seq: 2, step: 0, provider: 'openai.responses', modelId: 'gpt-4o-mini', usd: 0.000345 },
        { seq: 3, step: 1, provider: 'gnl-demo', modelId: 'scripted-support-v1\u202e', usd: null, unpriced: 'no-price' },
        { seq: 4, step: 2, provider: 'openai.responses', modelId: 'gpt-4o-mini', usd: 0.000345 },
      ],
    });
  });

  it('GNL_PRICES_FILE overrides a price; a bad one fails with one line naming the file and the entry', async () => {
    const override = path.join(dir, 'prices.json');
    writeFileSync(override, JSON.stringify({ takenOn: '2026-11-30', models: { openai: { 'gpt-4o-mini': { input: 1, cacheRead: 0.5, output: 2 } } } }));
    const { cost } = await gnlJson(['show', runId], { env: { ...env, GNL_PRICES_FILE: override } });
    // 1000 × $1 + 200 × $0.50 + 300 × $2 per million tokens, twice.
    expect(cost).toMatchObject({ usd: 0.0034, pricesTakenOn: ['2026-11-30'] });

    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ takenOn: '2026-11-30', models: { openai: { 'gpt-4o-mini': { input: 1, output: 'two' } } } }));
    const failed = await gnl(['show', runId], { env: { ...env, GNL_PRICES_FILE: bad } });
    expect(failed.code).toBe(2);
    expect(failed.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(failed.stderr).toContain(`gnl: Price file ${bad}, entry models.openai.gpt-4o-mini.output: `);
  });
});
