// The machine is shared (other sessions run test suites on the same 2 cores). Before a
// measurement, wait until the rest of the machine is quiet for a few seconds, within a bound,
// and say how busy it was, so a disturbed run is visible as such rather than silently slow.
import fs from 'node:fs';

function cpuTicks(): { busy: number; total: number } {
  const values = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values as [number, number, number, number, number, number, number, number];
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** Busy % of one core over `ms` (the whole machine: 100 × cores at most). */
async function machineBusy(ms: number, cores: number): Promise<number> {
  const a = cpuTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTicks();
  return Math.round(((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100 * cores);
}

/**
 * Waits (at most `maxWaitS`, env BENCH_QUIET_WAIT, 0 disables) until the machine used less than
 * `threshold` % of one core (env BENCH_QUIET_PCT, default 25) over a 3-second window.
 * Returns the last window's busy %.
 */
export async function waitForQuiet(label: string, cores: number): Promise<number> {
  const maxWaitS = Number(process.env.BENCH_QUIET_WAIT ?? 180);
  const threshold = Number(process.env.BENCH_QUIET_PCT ?? 25);
  const deadline = Date.now() + maxWaitS * 1000;
  let busy = await machineBusy(maxWaitS > 0 ? 3000 : 500, cores);
  let said = false;
  while (busy >= threshold && Date.now() < deadline) {
    if (!said) console.log(`# ${label}: waiting for other work to finish (machine busy ${busy}% of a core)`);
    said = true;
    busy = await machineBusy(3000, cores);
  }
  if (busy >= threshold) console.log(`# ${label}: still ${busy}% busy after ${maxWaitS} s; measuring anyway`);
  return busy;
}
