// Where the machine's CPU went during a measurement, from /proc: Postline's process (all its
// threads: event loop, libuv pool doing RSA, GC), its PostgreSQL processes, the load generator
// (this process), and everything else. "Everything else" shows when a run was disturbed by
// other work on the shared 2 cores; the Postline share shows how close it is to saturation.
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function processTicks(pid: number, file = `/proc/${pid}/stat`, withChildren = false): number {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const children = withChildren ? Number(fields[13]) + Number(fields[14]) : 0; // cutime + cstime: children waited for
    return Number(fields[11]) + Number(fields[12]) + children; // utime + stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/** Ticks of every process, with its command name, for naming what else ran. */
function allProcessTicks(): Map<number, { comm: string; ticks: number }> {
  const out = new Map<number, { comm: string; ticks: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), { comm, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** Busy ticks of the whole machine (all cores), from the first line of /proc/stat. */
function machineBusyTicks(): number {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
  void idle;
  void iowait;
  return user! + nice! + system! + irq! + softirq! + steal!;
}

export interface CpuShares {
  /** Percent of one core, averaged over the measurement. */
  postline: number;
  /** Of which Postline's main thread (the event loop; the first process's); 100 means it was never idle. */
  postlineMain: number;
  postgres: number;
  generator: number;
  other: number;
  /** The biggest of the other processes, e.g. "smtp-sink 9%, node 40%". */
  otherTop: string;
  /** Percent of one core for the whole machine (100 × nproc is the most). */
  machine: number;
}

export class CpuMeter {
  private start: {
    at: number;
    machine: number;
    postline: number;
    postlineMain: number;
    postgres: Map<number, number>;
    generator: number;
    all: Map<number, { comm: string; ticks: number }>;
  };

  /**
   * `postgresPids`: Postline's PostgreSQL processes now; pass them again to stop(), since the
   * pool may open new connections meanwhile. `secondPid`: a second Postline process (a worker
   * node), counted as Postline.
   */
  constructor(
    private postlinePid: number,
    private postgresPids: number[],
    private secondPid?: number,
  ) {
    this.start = this.snapshot();
  }

  private snapshot() {
    return {
      at: performance.now(),
      machine: machineBusyTicks(),
      postline: processTicks(this.postlinePid) + (this.secondPid ? processTicks(this.secondPid) : 0),
      postlineMain: processTicks(this.postlinePid, `/proc/${this.postlinePid}/task/${this.postlinePid}/stat`),
      postgres: new Map(this.postgresPids.map((pid) => [pid, processTicks(pid)])),
      // This process and the generator processes it ran to their end (bench/support/smtp-tls-source.ts).
      generator: processTicks(process.pid, undefined, true),
      all: allProcessTicks(),
    };
  }

  /** Shares since construction; `postgresPids` as now (a process born meanwhile counts whole). */
  stop(postgresPids: number[] = this.postgresPids): CpuShares {
    this.postgresPids = [...new Set([...this.postgresPids, ...postgresPids])];
    const end = this.snapshot();
    const seconds = (end.at - this.start.at) / 1000;
    const pct = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / seconds) * 100);
    let pgTicks = 0;
    for (const [pid, ticks] of end.postgres) pgTicks += Math.max(0, ticks - (this.start.postgres.get(pid) ?? 0));
    const postline = end.postline - this.start.postline;
    const generator = end.generator - this.start.generator;
    const machine = end.machine - this.start.machine;
    const ours = new Set([this.postlinePid, this.secondPid ?? 0, process.pid, ...this.postgresPids]);
    const others = new Map<string, number>();
    for (const [pid, { comm, ticks }] of end.all) {
      if (ours.has(pid)) continue;
      const delta = ticks - (this.start.all.get(pid)?.ticks ?? 0); // a process born meanwhile counts whole
      if (delta > 0) others.set(comm, (others.get(comm) ?? 0) + delta);
    }
    const otherTop = [...others]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .filter(([, ticks]) => pct(ticks) >= 1)
      .map(([comm, ticks]) => `${comm} ${pct(ticks)}%`)
      .join(', ');
    return {
      otherTop,
      postline: pct(postline),
      postlineMain: pct(end.postlineMain - this.start.postlineMain),
      postgres: pct(pgTicks),
      generator: pct(generator),
      other: Math.max(0, pct(machine - postline - pgTicks - generator)),
      machine: pct(machine),
    };
  }
}
