// Memory of processes from /proc: RSS and its kernel-kept peak (VmHWM) for Postline's Node
// process; for the PostgreSQL server, the sum of PSS over its processes, because every
// backend maps the same shared_buffers and a plain RSS sum would count them once per backend.
import fs from 'node:fs';

interface ProcMemory {
  rssKiB: number;
  hwmKiB: number;
}

export function procStatus(pid: number): ProcMemory | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Proportional set size summed over pids, and the plain RSS sum, KiB. */
function groupMemory(pids: number[]): { pssKiB: number; rssKiB: number; processes: number } {
  let pssKiB = 0;
  let rssKiB = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      pssKiB += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      rssKiB += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      processes++;
    } catch {
      /* exited meanwhile */
    }
  }
  return { pssKiB, rssKiB, processes };
}

/** Samples a set of processes every `everyMs` and keeps the peaks until stopped. */
export class MemorySampler {
  peakNodeRssKiB = 0;
  peakPgPssKiB = 0;
  peakPgRssKiB = 0;
  peakPgProcesses = 0;
  private timer: NodeJS.Timeout;

  constructor(
    private nodePid: number,
    private pgPids: () => number[],
    everyMs = 250,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  sample(): void {
    const node = procStatus(this.nodePid);
    if (node) this.peakNodeRssKiB = Math.max(this.peakNodeRssKiB, node.rssKiB);
    const pg = groupMemory(this.pgPids());
    this.peakPgPssKiB = Math.max(this.peakPgPssKiB, pg.pssKiB);
    this.peakPgRssKiB = Math.max(this.peakPgRssKiB, pg.rssKiB);
    this.peakPgProcesses = Math.max(this.peakPgProcesses, pg.processes);
  }

  /** The kernel's own peak RSS of the Node process (VmHWM), which catches spikes between samples. */
  nodeHwmKiB(): number {
    return procStatus(this.nodePid)?.hwmKiB ?? this.peakNodeRssKiB;
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

export const mib = (kib: number) => Math.round(kib / 1024);
