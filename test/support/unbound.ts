// A real validating resolver for tests: Debian's unbound (apt packages `unbound`, `ldnsutils`)
// on 127.0.0.1 at a free port, serving test zones so that DnsResolver sees what a DNSSEC-validating
// resolver really answers: AD on secure data, no AD on unsigned zones, SERVFAIL on bogus data.
//
// Each signed zone is signed at start with its own key (ldns-keygen, ldns-signzone) and its DS
// record configured as a `trust-anchor`; unbound loads every zone as an `auth-zone` with
// `for-upstream: yes, for-downstream: no`, so the zone's answers go through the iterator and
// the validator as if they came from an authoritative server, instead of being answered as
// local data (which unbound never validates). It never asks any other server: there are no
// root hints it may use (`do-not-query-address` covers every address), and `test.` is freed
// from unbound's default local zones (RFC 6761 names answer NXDOMAIN otherwise).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import packet from 'dns-packet';
import { freePort, removedAtExit, stopChild } from './processes.js';

interface TestZone {
  /** `dane.test`: a name under `test.`, which no real resolver delegates. */
  name: string;
  /** Signed, with a trust anchor: its answers are secure. Unsigned: insecure (no AD). */
  signed: boolean;
  /** Zone-file lines, names absolute (`mx.dane.test. 300 IN A 127.0.0.1`); SOA and NS are added. */
  records: string[];
  /**
   * Lines that replace, after signing, the signed records of the same name and type, so their
   * signatures no longer match: bogus data, which a validating resolver answers with SERVFAIL.
   */
  tamperedAfterSigning?: string[];
}

export interface ValidatingResolver {
  /** `127.0.0.1:PORT`, as POSTLINE_DNS_SERVERS and DnsResolver take it. */
  address: string;
  stop(): Promise<void>;
}

/** Debian installs unbound in /usr/sbin, which an unprivileged PATH may lack. */
const PATH = [process.env.PATH, '/usr/sbin', '/sbin'].filter(Boolean).join(':');
const START_TIMEOUT_MS = 10_000;
const DAY_S = 86_400;

export async function startValidatingResolver(options: { zones: TestZone[] }): Promise<ValidatingResolver> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postline-unbound-'));
  try {
    const zones = options.zones.map((zone) => writeZone(dir, zone));
    // The port is free when chosen but unbound binds it a moment later: another process may
    // take it meanwhile, so a few ports are tried (unbound exits when it cannot bind).
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const config = path.join(dir, 'unbound.conf');
      fs.writeFileSync(config, unboundConfig(dir, port, zones));
      const child = spawn('unbound', ['-d', '-c', config], { env: { ...process.env, PATH }, stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8_000)));
      const removal = removedAtExit(child, dir); // and the zones' keys with it
      try {
        await answering(child, port, zones[0]?.name ?? 'test');
      } catch (err) {
        removal.forget();
        await stopChild(child);
        if (attempt < 4 && /bind|address already in use/i.test(log)) continue;
        throw new Error(`unbound did not start: ${(err as Error).message}\n${log}`);
      }
      return {
        address: `127.0.0.1:${port}`,
        stop: removal.stop,
      };
    }
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

interface WrittenZone {
  name: string;
  file: string;
  /** The DS record of a signed zone's key, for `trust-anchor:`. */
  trustAnchor: string | null;
}

function writeZone(dir: string, zone: TestZone): WrittenZone {
  const name = zone.name.replace(/\.$/, '').toLowerCase();
  const file = path.join(dir, `${name}.zone`);
  const soa = `${name}. 300 IN SOA ns.${name}. hostmaster.${name}. 1 3600 600 86400 300`;
  fs.writeFileSync(file, [soa, `${name}. 300 IN NS ns.${name}.`, ...zone.records, ''].join('\n'));
  if (!zone.signed) {
    if (zone.tamperedAfterSigning?.length) throw new Error(`zone ${name}: only a signed zone can be tampered with after signing`);
    return { name, file, trustAnchor: null };
  }
  const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: dir, env: { ...process.env, PATH }, encoding: 'utf8' });
  const key = run('ldns-keygen', ['-a', 'ECDSAP256SHA256', '-k', name]).trim();
  // Signatures valid from a day ago, so a clock a little behind still accepts them.
  const now = Math.floor(Date.now() / 1000);
  run('ldns-signzone', ['-i', String(now - DAY_S), '-e', String(now + 30 * DAY_S), '-f', `${file}.signed`, file, key]);
  let signed = fs.readFileSync(`${file}.signed`, 'utf8');
  for (const line of zone.tamperedAfterSigning ?? []) signed = tamper(signed, line);
  fs.writeFileSync(`${file}.signed`, signed);
  const ds = fs
    .readFileSync(path.join(dir, `${key}.ds`), 'utf8')
    .trim()
    .replace(/\s+/g, ' ');
  return { name, file: `${file}.signed`, trustAnchor: ds };
}

/** The signed zone with the records of `line`'s name and type replaced by `line` (their RRSIG kept). */
function tamper(zoneText: string, line: string): string {
  const [owner, , , type] = line.trim().split(/\s+/);
  const sameRRset = (l: string) => {
    const fields = l.trim().split(/\s+/);
    return fields[0]?.toLowerCase() === owner?.toLowerCase() && fields[3]?.toUpperCase() === type?.toUpperCase();
  };
  const lines = zoneText.split('\n');
  if (!lines.some(sameRRset)) throw new Error(`nothing to tamper with: no ${type} record of ${owner} in the signed zone`);
  return [...lines.filter((l) => !sameRRset(l)), line, ''].join('\n');
}

function unboundConfig(dir: string, port: number, zones: WrittenZone[]): string {
  const server = [
    `interface: 127.0.0.1@${port}`,
    `port: ${port}`,
    'do-ip6: no',
    'so-reuseport: no', // a port another unbound holds must fail to bind, not be shared
    'num-threads: 1',
    'username: ""',
    'chroot: ""',
    `directory: "${dir}"`,
    'pidfile: ""',
    'use-syslog: no',
    'logfile: ""',
    'verbosity: 1',
    'val-log-level: 2', // why an answer is bogus, in the log a failed start prints
    'access-control: 127.0.0.0/8 allow',
    'module-config: "validator iterator"',
    'trust-anchor-signaling: no',
    'local-zone: "test." nodefault',
    // Offline: nothing beyond the auth zones is ever asked (no root, no internet).
    'do-not-query-address: 0.0.0.0/0',
    'do-not-query-address: ::/0',
    'msg-cache-size: 1m',
    'rrset-cache-size: 1m',
    'key-cache-size: 1m',
    ...zones.filter((z) => z.trustAnchor).map((z) => `trust-anchor: "${z.trustAnchor}"`),
  ];
  const authZones = zones.map((z) =>
    ['auth-zone:', `  name: "${z.name}."`, `  zonefile: "${z.file}"`, '  for-upstream: yes', '  for-downstream: no', '  fallback-enabled: no'].join('\n'),
  );
  return ['server:', ...server.map((line) => `  ${line}`), ...authZones, ''].join('\n');
}

/** A port free on 127.0.0.1 for TCP (UDP is checked by unbound's own bind). */

/** Resolves once unbound answers a query on `port` (any answer); rejects if it exits first or takes too long. */
function answering(child: ChildProcess, port: number, zone: string): Promise<void> {
  const socket = dgram.createSocket('udp4');
  const query = packet.encode({ type: 'query', id: 1, flags: packet.RECURSION_DESIRED, questions: [{ type: 'SOA', name: zone, class: 'IN' }] });
  let poll: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let onExit: (code: number | null) => void = () => {};
  let onError: (err: Error) => void = () => {};
  return new Promise<void>((resolve, reject) => {
    onExit = (code) => reject(new Error(`unbound exited (${code})`));
    onError = (err) => reject(new Error(`unbound could not be run (${err.message}): is the apt package unbound installed?`));
    child.once('exit', onExit).once('error', onError);
    socket.on('message', () => resolve());
    socket.on('error', () => {}); // ICMP port unreachable before unbound binds: keep asking
    const send = () => socket.send(query, port, '127.0.0.1');
    poll = setInterval(send, 100);
    deadline = setTimeout(() => reject(new Error(`no answer within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    send();
  }).finally(() => {
    clearInterval(poll);
    clearTimeout(deadline);
    child.off('exit', onExit).off('error', onError);
    socket.close();
  });
}

/** SIGTERM, then SIGKILL if unbound has not exited within 3 s. */
