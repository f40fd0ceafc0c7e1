// Lists the longest busy periods of a V8 CPU profile (from FEIRA_BENCH_CPU_PROF):
// stretches without an `(idle)` sample, with how densely they were sampled and
// which frames they spent their samples in. A latency tail shows up here as
// periods far longer than one request; a period with few samples per ms is
// time the thread did not run (blocked in a system call such as an fsync, or
// waiting for a core), which a self-time summary cannot show.
//
//   node --import tsx bench/tools/busy-periods.ts <file.cpuprofile> [min ms = 5] [skip first s = 3]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, minArg, skipArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: busy-periods.ts <file.cpuprofile> [min ms] [skip first seconds]');
  process.exit(2);
}
const minMs = Number(minArg ?? 5);
const skipUs = Number(skipArg ?? 3) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const frameName = (id: number) => {
  const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
  return `${functionName || '(anonymous)'} ${url.split('/').pop() ?? ''}:${lineNumber}`;
};

interface Period {
  startUs: number;
  durationMs: number;
  samples: number[];
}
const periods: Period[] = [];
let at = profile.startTime;
let current: Period | null = null;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  if ((byId.get(id) as ProfileNode).callFrame.functionName === '(idle)') {
    if (current) {
      current.durationMs = (at - current.startUs) / 1000;
      if (current.durationMs >= minMs && current.startUs - profile.startTime >= skipUs) periods.push(current);
    }
    current = null;
  } else {
    current ??= { startUs: at, durationMs: 0, samples: [] };
    current.samples.push(id);
  }
});

periods.sort((a, b) => b.durationMs - a.durationMs);
console.log(`${periods.length} busy periods of ${minMs} ms or more (after the first ${skipUs / 1e6} s)`);
for (const period of periods.slice(0, 25)) {
  // Inclusive share of each frame in the period's samples.
  const counts = new Map<string, number>();
  for (const sample of period.samples) {
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parentOf.get(id)) {
      const name = frameName(id);
      if (name.startsWith('(root)') || seen.has(name)) continue;
      seen.add(name);
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([name, n]) => `${name} ${Math.round((100 * n) / period.samples.length)}%`);
  const offset = ((period.startUs - profile.startTime) / 1e6).toFixed(2);
  const density = (period.samples.length / period.durationMs).toFixed(2);
  console.log(`${offset} s  ${period.durationMs.toFixed(1)} ms  ${density} samples/ms  ${top.join(' | ')}`);
}
