// Summarises a V8 .cpuprofile (as FEIRA_BENCH_CPU_PROF writes them): self and inclusive time per
// function and self time per package, as shares of the profile's samples. Usage:
//   node --import tsx bench/tools/profile-summary.ts <file.cpuprofile> [--top 40] [--match <text>]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, match: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: profile-summary <file.cpuprofile> [--top N] [--match text]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfCount = new Map<number, number>();
for (const s of profile.samples) selfCount.set(s, (selfCount.get(s) ?? 0) + 1);

const total = profile.samples.length;
const label = (f: CallFrame) => {
  const where = f.url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, '~/')
    .replace(/.*\/packages\//, '@/');
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
};
const packageOf = (f: CallFrame) => {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (nm) return nm[1] as string;
  const pk = /\/packages\/([^/]+)\//.exec(f.url);
  if (pk) return `@feira/${pk[1]}`;
  if (f.url.startsWith('node:')) return 'node';
  return f.url;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const pkgSelf = new Map<string, number>();
for (const [id, count] of selfCount) {
  const node = byId.get(id) as ProfileNode;
  const k = label(node.callFrame);
  self.set(k, (self.get(k) ?? 0) + count);
  const p = packageOf(node.callFrame);
  pkgSelf.set(p, (pkgSelf.get(p) ?? 0) + count);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const l = label((byId.get(at) as ProfileNode).callFrame);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + count);
  }
}
const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;
const top = Number(values.top);
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n## ${title}`);
  const rows = [...m].filter(([k]) => !values.match || k.includes(values.match)).sort((a, b) => b[1] - a[1]);
  for (const [k, n] of rows.slice(0, top)) console.log(`${pct(n)}  ${k}`);
};
console.log(`${total} samples`);
show('self time by package', pkgSelf);
show('self time by function', self);
show('inclusive time by function', inclusive);
