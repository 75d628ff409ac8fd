// Where the CPU went in a V8 profile (`node --cpu-prof`, written by the benches' --cpu-prof DIR):
// the top functions by self time, and self time summed per package / source folder.
//
//   npx tsx bench/profile-top.ts /tmp/prof/CPU.*.cpuprofile [--top 25] [--callers sign]
// --callers NAME: the call stacks (5 frames up) that lead to functions named NAME, by self time.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' }, callers: { type: 'string' } },
  allowPositionals: true,
});

const frame = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;

/** node_modules/<pkg>, src/<folder>, node:<module>, or the V8 pseudo-frames ((garbage collector), (idle)…). */
function owner(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/(src|bench|test)\/([^/]+)/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfUs].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
  const fns = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const short = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/');
    const key = `${functionName || '(anonymous)'}  ${short}${url ? `:${lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const o = owner(url, functionName);
    owners.set(o, (owners.get(o) ?? 0) + us);
  }
  const busy = total - idle;
  if (busy < total * 0.1) {
    console.log(`\n# ${file}: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s (a helper thread such as tsx's loader); skipped`);
    continue;
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(`\n# ${file}\n# ${(total / 1e6).toFixed(1)} s profiled, ${(idle / 1e6).toFixed(1)} s idle; % of busy time (${(busy / 1e6).toFixed(1)} s)`);
  console.log('\n## self time by package / folder');
  for (const [o, us] of [...owners]
    .filter(([o]) => o !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20))
    console.log(`${pct(us)}  ${o}`);
  console.log('\n## top functions by self time');
  for (const [k, us] of [...fns]
    .filter(([k]) => !k.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(values.top)))
    console.log(`${pct(us)}  ${k}`);
  if (values.callers) {
    const parent = new Map<number, Node>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
    const stacks = new Map<string, number>();
    for (const [id, us] of selfUs) {
      let n: Node | undefined = byId.get(id)!;
      if (n.callFrame.functionName !== values.callers) continue;
      const chain: string[] = [];
      for (let k = 0; k < Number(process.env.DEPTH ?? 6) && n; k++, n = parent.get(n.id)) chain.push(frame(n));
      const key = chain.join('\n        ← ');
      stacks.set(key, (stacks.get(key) ?? 0) + us);
    }
    console.log(`\n## stacks into ${values.callers}`);
    for (const [k, us] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${pct(us)}  ${k}`);
  }
}
