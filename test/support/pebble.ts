// A real ACME server for tests: Let's Encrypt's Pebble, as Debian packages it (apt package
// `pebble`, /usr/bin/pebble), on 127.0.0.1 at a free port with its own temp dir and config.
// Its HTTPS presents a self-signed certificate made for the run (`ca`), so a client trusts it
// only when told to: the test CA would not do, scripts/test.mjs makes every test process trust
// that one already (NODE_EXTRA_CA_CERTS). It validates challenges on the ports the test's
// responders listen on (`httpPort`, `tlsPort`) at the addresses the test's DNS server gives
// (`-dnsserver`), answers at full speed (PEBBLE_VA_NOSLEEP) and deterministically: no nonce is
// rejected for fun (PEBBLE_WFE_NONCEREJECT=0) and an account's earlier authorizations are reused
// as rarely as Pebble allows (PEBBLE_AUTHZREUSE=0, which is still 1 time in 100: Pebble makes a new
// one when rand.Intn(100) > 0), so a test whose challenge must run orders with a new account.
// Its root is new at every start (rootCertificate()).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort, removedAtExit, stopChild } from './processes.js';
import { issueCertificate } from './test-ca.js';

export interface TestPebble {
  /** https://localhost:PORT/dir */
  directoryUrl: string;
  /** The self-signed certificate of Pebble's HTTPS (PEM): trust it for `directoryUrl`. */
  ca: string;
  /** The root that issued this run's certificates (PEM), from Pebble's management interface. */
  rootCertificate(): Promise<string>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** `validitySeconds`: how long the certificates it issues last (Pebble's default: five years). */
export async function startPebble(options: { dnsServer: string; httpPort: number; tlsPort: number; validitySeconds?: number }): Promise<TestPebble> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postline-pebble-'));
  try {
    // Pebble's own HTTPS: `localhost` is the name its URLs carry (issueCertificate takes DNS names only).
    const own = issueCertificate(['localhost'], { selfSigned: true });
    fs.writeFileSync(path.join(dir, 'cert.pem'), own.cert);
    fs.writeFileSync(path.join(dir, 'key.pem'), own.key);
    // The ports are free when chosen but Pebble binds them a moment later: another process may
    // take one meanwhile, so a few pairs are tried (Pebble exits when it cannot bind).
    for (let attempt = 0; ; attempt++) {
      const [port, managementPort] = [await freePort(), await freePort()];
      fs.writeFileSync(path.join(dir, 'pebble-config.json'), JSON.stringify(pebbleConfig(dir, port, managementPort, options), null, 2));
      const child = spawn('pebble', ['-config', path.join(dir, 'pebble-config.json'), '-dnsserver', options.dnsServer], {
        cwd: dir,
        env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8_000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      const removal = removedAtExit(child, dir);
      const directoryUrl = `https://localhost:${port}/dir`;
      try {
        await answering(child, directoryUrl, own.cert);
      } catch (err) {
        removal.forget();
        await stopChild(child);
        if (attempt < 4 && /address already in use/i.test(log)) continue;
        throw new Error(`pebble did not start: ${(err as Error).message}\n${log}`);
      }
      return {
        directoryUrl,
        ca: own.cert,
        rootCertificate: () => get(`https://localhost:${managementPort}/roots/0`, own.cert),
        stop: removal.stop,
      };
    }
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function pebbleConfig(dir: string, port: number, managementPort: number, options: { httpPort: number; tlsPort: number; validitySeconds?: number }) {
  return {
    pebble: {
      listenAddress: `127.0.0.1:${port}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: path.join(dir, 'cert.pem'),
      privateKey: path.join(dir, 'key.pem'),
      httpPort: options.httpPort,
      tlsPort: options.tlsPort,
      ...(options.validitySeconds ? { certificateValidityPeriod: options.validitySeconds } : {}),
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  };
}

/** Waits until the directory answers, or fails early if Pebble exits. */
async function answering(child: ChildProcess, directoryUrl: string, ca: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`pebble exited (${signal ?? code})`)));
    child.once('error', (err) => reject(new Error(`pebble could not run (apt-get install pebble): ${err.message}`)));
  });
  exited.catch(() => {});
  for (;;) {
    try {
      await Promise.race([get(directoryUrl, ca), exited]);
      return;
    } catch (err) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A GET over HTTPS trusting `ca` only; the body of a 200, else an error. */
function get(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ca, agent: false, timeout: 2_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => (response.statusCode === 200 ? resolve(body) : reject(new Error(`${url} answered ${response.statusCode}`))));
    });
    request.on('timeout', () => request.destroy(new Error(`${url} did not answer`)));
    request.on('error', reject);
  });
}
