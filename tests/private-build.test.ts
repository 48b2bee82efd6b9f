import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateBuild as tighten } from '@/scripts/private-build.mjs';

/** A .next as `next build` leaves it under umask 000: folders 0777, files 0666, the keys where Next 16 puts them. */
function looseBuild(): { nextDir: string; outside: string } {
  const nextDir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-build-')), '.next');
  const files: Record<string, string> = {
    BUILD_ID: 'b',
    'prerender-manifest.json': '{"preview":{"previewModeSigningKey":"k"}}',
    'server/preview-props.json': '{"previewModeEncryptionKey":"k"}',
    'server/server-reference-manifest.json': '{"encryptionKey":"k"}',
    'server/app/page.js': '',
    'server/chunks/ssr/chunk.js': '',
    'cache/images/a.webp': '',
    'static/chunks/app.js': '',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(nextDir, name)), { recursive: true });
    writeFileSync(path.join(nextDir, name), text);
  }
  const outside = path.join(path.dirname(nextDir), 'elsewhere.js');
  writeFileSync(outside, '');
  chmodSync(outside, 0o666);
  symlinkSync(outside, path.join(nextDir, 'server', 'linked.js'));
  for (const [name, { kind }] of modes(nextDir)) chmodSync(path.join(nextDir, name), kind === 'folder' ? 0o777 : 0o666);
  return { nextDir, outside };
}

function modes(root: string): Map<string, { kind: 'folder' | 'file'; mode: number }> {
  const found = new Map<string, { kind: 'folder' | 'file'; mode: number }>();
  const visit = (entry: string) => {
    const stats = lstatSync(entry);
    if (stats.isSymbolicLink()) return;
    found.set(path.relative(root, entry) || '.', { kind: stats.isDirectory() ? 'folder' : 'file', mode: stats.mode & 0o777 });
    if (stats.isDirectory()) for (const child of readdirSync(entry)) visit(path.join(entry, child));
  };
  visit(root);
  return found;
}

const octal = (found: Map<string, { mode: number }>) => Object.fromEntries([...found].map(([name, { mode }]) => [name, mode.toString(8)]));

describe("the Studio's build keeps its keys from other users", () => {
  it('a build found open is tightened with one line: server/ and cache/ 0700 and 0600, prerender-manifest.json 0600, nothing writable by others', () => {
    const { nextDir, outside } = looseBuild();
    const lines: string[] = [];

    const loose = tighten(nextDir, { log: (line) => lines.push(line) });

    expect(octal(modes(nextDir))).toEqual({
      '.': '755',
      BUILD_ID: '644',
      'prerender-manifest.json': '600',
      server: '700',
      'server/preview-props.json': '600',
      'server/server-reference-manifest.json': '600',
      'server/app': '700',
      'server/app/page.js': '600',
      'server/chunks': '700',
      'server/chunks/ssr': '700',
      'server/chunks/ssr/chunk.js': '600',
      cache: '700',
      'cache/images': '700',
      'cache/images/a.webp': '600',
      static: '755',
      'static/chunks': '755',
      'static/chunks/app.js': '644',
    });
    expect(lstatSync(outside).mode & 0o777).toBe(0o666); // a symlink is not followed
    expect(loose).toHaveLength(17);
    expect(lines).toEqual([
      `studio: the build in ${nextDir} was open to other users (server/: 4 files 0666, 4 folders 0777; cache/: 2 folders 0777, 1 file 0666; ` +
        'prerender-manifest.json: 1 file 0666; the rest: 3 folders 0777, 2 files 0666); now server/ and cache/ are 0700 folders of 0600 files, ' +
        'prerender-manifest.json 0600, and nothing in it is writable by others.',
    ]);
  });

  it('a build already private is left as it is, without a word', () => {
    const { nextDir } = looseBuild();
    tighten(nextDir);
    const before = octal(modes(nextDir));
    const lines: string[] = [];
    expect(tighten(nextDir, { log: (line) => lines.push(line) })).toEqual([]);
    expect(lines).toEqual([]);
    expect(octal(modes(nextDir))).toEqual(before);
  });

  it('keeps the owner bits and takes only what others should not have (0750 server folder, 0640 key file, 0664 static file)', () => {
    const { nextDir } = looseBuild();
    tighten(nextDir);
    chmodSync(path.join(nextDir, 'server'), 0o750);
    chmodSync(path.join(nextDir, 'server', 'server-reference-manifest.json'), 0o640);
    chmodSync(path.join(nextDir, 'static', 'chunks', 'app.js'), 0o664);
    const loose = tighten(nextDir);
    expect(loose.map((entry) => [path.relative(nextDir, entry.path), entry.mode.toString(8), entry.now.toString(8)]).sort()).toEqual([
      ['server', '750', '700'],
      ['server/server-reference-manifest.json', '640', '600'],
      ['static/chunks/app.js', '664', '644'],
    ]);
  });
});
