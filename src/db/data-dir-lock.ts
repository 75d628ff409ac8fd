// Coordination between the Postline processes sharing one data directory (embedded.ts):
// a start mutex, and the registry of processes using its PostgreSQL server. Both survive a
// kill -9 of any of them: a lock or registration whose process is gone is ignored and removed.
// A process is identified by its pid plus, on Linux, its start time, so that a pid recycled by
// an unrelated process after a crash or a reboot is not taken for the one that wrote it.
import fs from 'node:fs/promises';
import path from 'node:path';

export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot); '' where there is no /proc. */
async function startTime(pid: number): Promise<string> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // The command name (field 2) may contain spaces: count fields after its closing ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
}

/** "pid start-time", as this process writes it into locks and registrations. */
const myIdentity = async () => `${process.pid} ${await startTime(process.pid)}`;

async function isSameProcessAlive(identity: string): Promise<boolean> {
  const [pidText, started = ''] = identity.trim().split(' ');
  const pid = Number(pidText);
  if (!pid || !isAlive(pid)) return false;
  return started === '' || started === (await startTime(pid));
}

/** Runs fn while holding `dir`/pg-start.lock: create-exclusive, taken over only from a dead holder. */
export async function withDataDirLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const file = path.join(dir, 'pg-start.lock');
  const me = await myIdentity();
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await fs.writeFile(file, me, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = await readIfExists(file);
      if (holder === undefined) continue;
      // An empty file is a holder between create and write: wait for it like a live one.
      if (holder !== '' && !(await isSameProcessAlive(holder))) {
        // Remove the dead holder's lock only if it is still that one (not a new holder's).
        if ((await readIfExists(file)) === holder) await fs.rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${file} is held by process ${holder}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** The registry of processes using the server: one file per process in `usersDir`. Call under the lock. */
export async function register(usersDir: string): Promise<void> {
  await fs.mkdir(usersDir, { recursive: true });
  await liveUsers(usersDir);
  await fs.writeFile(path.join(usersDir, String(process.pid)), await myIdentity());
}

export async function unregister(usersDir: string): Promise<void> {
  await fs.rm(path.join(usersDir, String(process.pid)), { force: true });
}

/** How many registered processes are alive; removes the registrations of dead ones (kill -9, crash). */
export async function liveUsers(usersDir: string): Promise<number> {
  let alive = 0;
  for (const name of await fs.readdir(usersDir).catch(() => [])) {
    const file = path.join(usersDir, name);
    const content = await readIfExists(file);
    if (content !== undefined && (await isSameProcessAlive(content || name))) alive++;
    else await fs.rm(file, { force: true });
  }
  return alive;
}
