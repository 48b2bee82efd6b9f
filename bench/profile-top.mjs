// The functions with the most self time in the .cpuprofile files of a folder (bench/profile.ts).
//   node bench/profile-top.mjs DIR [N]            the N functions with the most self time (40)
//   node bench/profile-top.mjs DIR [N] --by-file  self time by source file, a package's files as one, idle left out
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const [dir, count] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const byFile = process.argv.includes('--by-file');
const self = new Map();
let total = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  profile.samples.forEach((id, i) => {
    dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  for (const [id, us] of dt) {
    const f = byId.get(id).callFrame;
    if (byFile && f.functionName === '(idle)') continue;
    const url = f.url.replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/\/work\/[^/]+\//, '');
    // A package's files as one (nm/ai, nm/@ai-sdk/provider-utils); a native function by its own name.
    const packageOf = (u) =>
      u
        .split('/')
        .slice(0, u.startsWith('nm/@') ? 3 : 2)
        .join('/');
    const key = byFile
      ? f.url
        ? url.startsWith('nm/')
          ? packageOf(url)
          : url
        : `(${f.functionName})`
      : `${f.functionName || '(anon)'} ${url}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
    total += us;
  }
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count ?? 40));
console.log(`total ${(total / 1000).toFixed(0)} ms${byFile ? ' (idle left out)' : ''}`);
for (const [k, us] of top) console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
