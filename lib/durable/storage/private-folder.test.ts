import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childArgs, type ChildEntry } from '@/tests/support/child-bundles';
import { PGliteStorage } from './pglite-storage';
import { describeLoose, prepareJournalFolder, tightenTree } from './private-folder';

// Each child sets its umask to 000 before anything else runs, and proves it by creating a probe file:
// 0666 means nothing in the child narrows modes but GNL itself.
const UMASK_000 = `--import=data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.umask(0); writeFileSync(process.env.GNL_UMASK_PROBE, '');",
)}`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function tempFolder(): string {
  return mkdtempSync(path.join(tmpdir(), 'gnl-private-'));
}

/** Every entry beneath `root` (itself included) with its permission bits, symlinks left out. */
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

function expectPrivate(root: string): number {
  const entries = modes(root);
  const open = [...entries].filter(([, { kind, mode }]) => mode !== (kind === 'folder' ? 0o700 : 0o600));
  expect(open.map(([name, { mode }]) => `${name} ${mode.toString(8)}`)).toEqual([]);
  return entries.size;
}

function spawnUnderUmask000(entry: ChildEntry, args: string[], options: { cwd: string; env: Record<string, string> }) {
  const probe = path.join(tempFolder(), 'umask-probe');
  // Not the test's environment: no DATABASE_URL, GNL_DATA_DIR or NODE_OPTIONS of its own.
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'test', PATH: process.env.PATH, HOME: process.env.HOME, GNL_UMASK_PROBE: probe, ...options.env };
  const child = spawn(process.execPath, [...childArgs(entry, UMASK_000), ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const output = { stdout: '', stderr: '', probe };
  child.stdout?.on('data', (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output.stderr += chunk;
  });
  return { child, output };
}

/** tests/support/hold-data-dir.ts under umask 000: opens the journal at `dataDir`, writes a run, waits to be killed. */
async function holdUnderUmask000(dataDir: string) {
  const started = spawnUnderUmask000('tests/support/hold-data-dir.ts', [dataDir], { cwd: tempFolder(), env: {} });
  const { child, output } = started;
  while (!output.stdout.includes('ready')) {
    await Promise.race([
      once(child.stdout as NodeJS.ReadableStream, 'data'),
      once(child, 'exit').then(() => Promise.reject(new Error(`child exited: ${output.stdout}${output.stderr}`))),
    ]);
  }
  expect(lstatSync(output.probe).mode & 0o777).toBe(0o666);
  return started;
}

async function killed(child: ChildProcess) {
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
}

// Each test starts PGlite in child processes on a fresh folder (a first start migrates it): minutes on a loaded machine, never a claim about speed.
describe('the embedded journal is private to its user', { timeout: 240_000 }, () => {
  it('the CLI on a fresh checkout under umask 000 creates .gnl 0700 and .gnl/data 0700 with every file 0600', async () => {
    const cwd = tempFolder();
    const { child, output } = spawnUnderUmask000('lib/cli/cli-entry.ts', ['list', '--json'], { cwd, env: { GNL_DEMO_CHECKS: '0' } });
    const [code] = await once(child, 'exit');
    expect(code, output.stderr).toBe(0);
    expect(lstatSync(output.probe).mode & 0o777).toBe(0o666);
    expect(JSON.parse(output.stdout)).toEqual({ runs: [] });
    expect(output.stderr).not.toContain('open to other users'); // a first start has nothing to report
    // .gnl, .gnl/data and the ~1,000 files and folders PGlite writes (most arrive 0666 from initdb's image).
    expect(expectPrivate(path.join(cwd, '.gnl'))).toBeGreaterThan(900);
  });

  it('a journal held open under umask 000 (a Studio or worker, killed without closing) is private, .gnl and the lock file included', async () => {
    const dataDir = path.join(tempFolder(), '.gnl', 'data');
    // .gnl made moments before by something else (the Studio's session secret): tightened, and a first start has nothing to report.
    mkdirSync(path.dirname(dataDir));
    chmodSync(path.dirname(dataDir), 0o777);
    const { child, output } = await holdUnderUmask000(dataDir);
    try {
      expect(output.stderr).not.toContain('open to other users');
      expect(lstatSync(`${dataDir}.lock`).mode & 0o777).toBe(0o600);
      expect(expectPrivate(path.dirname(dataDir))).toBeGreaterThan(900);
    } finally {
      await killed(child);
    }
  });

  it('a data folder left open by an earlier version is tightened at start, with one line on stderr saying what was found', async () => {
    const gnl = path.join(tempFolder(), '.gnl');
    const dataDir = path.join(gnl, 'data');
    await killed((await holdUnderUmask000(dataDir)).child);
    // As an earlier GNL left it: folders 0777 and files 0666 (what PGlite writes under umask 000).
    for (const [name, { kind }] of modes(gnl)) chmodSync(path.join(gnl, name), kind === 'folder' ? 0o777 : 0o666);

    const { child, output } = await holdUnderUmask000(dataDir);
    try {
      const lines = output.stderr.split('\n').filter((line) => line.includes('open to other users'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^gnl: the embedded journal at ${dataDir} was open to other users \\(\\.gnl 0777, data 0777, \\d{3,} files 0666, \\d+ folders 0777\\); now ${gnl} and its folders are 0700 and its files 0600\\.$`,
        ),
      );
      expectPrivate(gnl);
    } finally {
      await killed(child);
    }

    const again = await holdUnderUmask000(dataDir);
    try {
      expect(again.output.stderr).not.toContain('open to other users');
    } finally {
      await killed(again.child);
    }
  });
});

describe('whose folder, in which place (issue 34 finding 4)', () => {
  // Only root can give a folder to another user; CI runs as root.
  it.runIf(process.getuid?.() === 0)('a journal folder another user owns is refused, naming both users, and nothing in it is touched', async () => {
    const dataDir = path.join(tempFolder(), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    writeFileSync(path.join(dataDir, 'PG_VERSION'), '17\n', { mode: 0o644 });
    chownSync(dataDir, 65534, 65534);
    const lines: string[] = [];
    expect(() => prepareJournalFolder(dataDir, (line) => lines.push(line))).toThrow(
      new RegExp(`^The embedded journal's folder ${dataDir} belongs to another user \\(uid 65534\\); this process runs as uid 0\\.`),
    );
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o755);
    expect(lstatSync(path.join(dataDir, 'PG_VERSION')).mode & 0o777).toBe(0o644);
    // Through the storage too: the first use says it, before PGlite opens anything.
    const storage = new PGliteStorage({ dataDir });
    await expect(storage.database()).rejects.toThrow(/belongs to another user \(uid 65534\)/);
    await storage.close();
  });

  it('a journal in a folder everyone may write (no sticky bit) is said at every start; under a sticky one (as /tmp) nothing is said', () => {
    const open = tempFolder();
    chmodSync(open, 0o777);
    const lines: string[] = [];
    prepareJournalFolder(path.join(open, 'data'), (line) => lines.push(line));
    prepareJournalFolder(path.join(open, 'data'), (line) => lines.push(line));
    expect(lines).toEqual([
      `gnl: ${open}, the folder that holds the embedded journal, is writable by everyone (mode 0777): anyone could replace the journal. Use a folder of your own (GNL_DATA_DIR) or take the write bit off (chmod o-w).`,
      `gnl: ${open}, the folder that holds the embedded journal, is writable by everyone (mode 0777): anyone could replace the journal. Use a folder of your own (GNL_DATA_DIR) or take the write bit off (chmod o-w).`,
    ]);
    const sticky = tempFolder();
    chmodSync(sticky, 0o1777);
    const none: string[] = [];
    prepareJournalFolder(path.join(sticky, 'data'), (line) => none.push(line));
    expect(none).toEqual([]);
    expect(lstatSync(path.join(sticky, 'data')).mode & 0o777).toBe(0o700);
  });
});

describe('tightenTree', () => {
  it('takes group and other bits off every folder and file beneath, keeps the owner bits, and never follows a symlink', () => {
    const root = tempFolder();
    const outside = path.join(tempFolder(), 'not-ours');
    writeFileSync(outside, '');
    chmodSync(outside, 0o644);
    mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    writeFileSync(path.join(root, 'a', 'b', 'wal'), 'secret');
    writeFileSync(path.join(root, 'a', 'run.sh'), '');
    writeFileSync(path.join(root, 'already'), '');
    symlinkSync(outside, path.join(root, 'link'));
    chmodSync(root, 0o755);
    chmodSync(path.join(root, 'a'), 0o777);
    chmodSync(path.join(root, 'a', 'b'), 0o750);
    chmodSync(path.join(root, 'a', 'b', 'wal'), 0o666);
    chmodSync(path.join(root, 'a', 'run.sh'), 0o775);
    chmodSync(path.join(root, 'already'), 0o600);

    const loose = tightenTree(root);

    expect(Object.fromEntries([...modes(root)].map(([name, { mode }]) => [name, mode.toString(8)]))).toEqual({
      '.': '700',
      a: '700',
      'a/b': '700',
      'a/b/wal': '600',
      'a/run.sh': '700',
      already: '600',
    });
    expect(lstatSync(outside).mode & 0o777).toBe(0o644);
    expect(loose.map((entry) => path.relative(root, entry.path) || '.').sort()).toEqual(['.', 'a', 'a/b', 'a/b/wal', 'a/run.sh']);
    expect(describeLoose(loose, [root])).toBe(`${path.basename(root)} 0755, 1 file 0666, 1 file 0775, 1 folder 0750, 1 folder 0777`);
    expect(tightenTree(root)).toEqual([]);
  });
});
