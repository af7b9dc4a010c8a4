/**
 * Sums the self time of a V8 CPU profile (`--profile <dir>` of bench/run.ts) by function and by
 * file, to name a route's largest costs:
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=40] [filter]
 * Idle and GC are listed as V8 names them; shares are of the profile's busy (non-idle) time.
 * A sampling heap profile (bench/route-cpu.ts's ROUTE_HEAP_PROFILE) is summed the same way, in
 * bytes allocated, by function and by the nearest kit function above it.
 */
import { readFileSync } from 'node:fs';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[] }
interface HeapNode { callFrame: Node['callFrame']; selfSize: number; children: HeapNode[] }

function summariseHeap(head: HeapNode): void {
  const name = (n: HeapNode): string => `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url) || '(native)'}`;
  const byFn = new Map<string, number>();
  const byKit = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode, kit: string): void => {
    const here = name(n);
    const nearest = here.includes(' server/') ? here : kit;
    if (n.selfSize > 0) {
      total += n.selfSize;
      byFn.set(here, (byFn.get(here) ?? 0) + n.selfSize);
      byKit.set(nearest, (byKit.get(nearest) ?? 0) + n.selfSize);
    }
    for (const child of n.children) walk(child, nearest);
  };
  walk(head, '(none)');
  const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0).padStart(8)} KB ${(100 * bytes / total).toFixed(1).padStart(5)}%`;
  console.log(`allocated ${(total / 1024 / 1024).toFixed(1)} MB (divide by the requests measured)`);
  console.log('\n-- by function');
  for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(kb(v), k);
  console.log('\n-- by nearest server/ function');
  for (const [k, v] of [...byKit].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(kb(v), k);
}

const [file, topArg, filter] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [filter]');
const top = Number(topArg ?? 40);
const short = (url: string): string => url.replace(/^file:\/\//, '').replace(/.*\/node_modules\//, 'nm/').replace(/.*\/(server|bench)\//, '$1/');
const parsedFile = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
if ('head' in parsedFile) {
  summariseHeap(parsedFile.head);
  process.exit(0);
}
const profile = parsedFile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const byFn = new Map<string, number>();
const byFile = new Map<string, number>();
let busy = 0;
let total = 0;
for (const [id, us] of self) {
  const node = byId.get(id);
  if (node === undefined) continue;
  total += us;
  const name = node.callFrame.functionName || '(anonymous)';
  if (name === '(idle)') continue;
  busy += us;
  const where = short(node.callFrame.url) || '(native)';
  if (filter !== undefined && !where.includes(filter) && !name.includes(filter)) continue;
  const fnKey = `${name} ${where}:${String(node.callFrame.lineNumber + 1)}`;
  byFn.set(fnKey, (byFn.get(fnKey) ?? 0) + us);
  const fileKey = where.startsWith('nm/') ? where.split('/').slice(0, where.split('/')[1]?.startsWith('@') ? 3 : 2).join('/') : where;
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
}
// Self time of library code charged to the nearest kit function above it (who asked for it).
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const byCaller = new Map<string, number>();
for (const [id, us] of self) {
  const node = byId.get(id);
  if (node === undefined || !short(node.callFrame.url).startsWith(filter ?? 'nm/')) continue;
  let up = parent.get(id);
  while (up !== undefined && !short(byId.get(up)?.callFrame.url ?? '').startsWith('server/')) up = parent.get(up);
  const caller = up === undefined ? '(none)' : `${byId.get(up)?.callFrame.functionName ?? ''} ${short(byId.get(up)?.callFrame.url ?? '')}`;
  byCaller.set(caller, (byCaller.get(caller) ?? 0) + us);
}
const pct = (us: number): string => `${(100 * us / busy).toFixed(1).padStart(5)}%`;
console.log(`total ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms`);
console.log('\n-- by file/package');
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
console.log(`\n-- ${filter ?? 'nm/'} self time by nearest server/ caller`);
for (const [k, v] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
console.log('\n-- by function');
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
