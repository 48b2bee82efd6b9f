/**
 * A Studio started with a setting that is wrong stops at once, naming the variable (instrumentation.ts,
 * lib/studio/boot.ts checkStudioSettings), instead of serving pages that answer 500: a GNL_TRACE_URL
 * that is a javascript: template (issue 34, finding 5). A real start of the shared build, on a folder
 * and a port of its own; no browser is needed for a server that never listens.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePortsSync } from './free-ports';

test('a javascript: GNL_TRACE_URL stops the start with a message naming it; nothing listens', async () => {
  // next start loads the build before it runs instrumentation: seconds on a loaded machine.
  test.setTimeout(120_000);
  const [port] = freePortsSync(1) as [number];
  const studio = spawn(process.execPath, ['scripts/studio.mjs'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: {
      ...process.env,
      DATABASE_URL: '',
      GNL_DATA_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'gnl-e2e-settings-')), 'data'),
      PORT: String(port),
      GNL_STUDIO_HOST: '127.0.0.1',
      GNL_DEMO_SERVICE: 'off',
      GNL_DEMO_SERVICE_URL: 'http://127.0.0.1:9',
      GNL_TRACE_URL: 'javascript:alert(document.cookie)//{traceId}',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  studio.stdout.on('data', (chunk) => {
    output += chunk;
  });
  studio.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => studio.on('exit', resolve));
  expect(code, output).not.toBe(0);
  expect(output).toContain('studio: refusing to start: GNL_TRACE_URL must be an http(s) URL');
  await expect(fetch(`http://127.0.0.1:${port}/sign-in`)).rejects.toThrow();
});
