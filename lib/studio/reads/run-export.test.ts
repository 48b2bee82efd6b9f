/**
 * The Studio's Export download (run-export.ts) on the journal storageFromEnv gives: JSON lines as an
 * attachment, secrets redacted whatever the caller; an unknown run is a 404. (Without a session the
 * route is refused before this runs: lib/studio/auth/security-routes.test.ts enumerates it.)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRunExport, REDACTED } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { runExportResponse } from './run-export';

const API_KEY = 'sk-proj-St1Xq81mN0pLkR7sT2vW9xY4bC6dE3fG';
const runId = `studio:export:${randomUUID()}`;
let storage: Storage;

beforeAll(async () => {
  process.env.GNL_DATA_DIR = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-studio-export-')), 'data');
  storage = storageFromEnv();
  const hold = await storage.runs.hold(runId);
  await hold.create({ prompt: 'Charge 40', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['charge'] });
  await hold.append([
    { type: 'tool-approval-request', toolCallId: 'call-1', toolName: 'charge', input: { apiKey: API_KEY, amount: 40 }, requestedAt: new Date().toISOString() },
  ]);
  await hold.release();
}, 300_000);

afterAll(async () => {
  await storage.close();
});

it('downloads the run as JSON lines, redacted, as an attachment', async () => {
  const response = await runExportResponse(runId);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="gnl-run-studio_export_[0-9a-f-]+\.jsonl"$/);
  const text = await response.text();
  expect(text).not.toContain(API_KEY);
  expect(text).toContain(REDACTED);
  expect(parseRunExport(text).header).toMatchObject({ runId, redacted: true, eventCount: 2 });
});

it('answers 404 for a run that does not exist', async () => {
  expect((await runExportResponse(`${runId}-nope`)).status).toBe(404);
});
