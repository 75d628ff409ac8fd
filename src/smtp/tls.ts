// The SMTP listeners' certificate: the operator's (POSTLINE_TLS_CERT and POSTLINE_TLS_KEY, PEM
// files), else a self-signed one made once per host name and kept in the data directory, so
// every node and every restart on that directory presents the same certificate.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { selfSignedCertificate, type KeyPair } from './self-signed.js';

type TlsConfig = Pick<Config, 'tlsCertFile' | 'tlsKeyFile' | 'dataDir' | 'smtpHostname'>;

export async function loadTlsCredentials(config: TlsConfig): Promise<KeyPair & { selfSigned: boolean }> {
  if (config.tlsCertFile || config.tlsKeyFile) {
    if (!config.tlsCertFile || !config.tlsKeyFile) throw new Error('POSTLINE_TLS_CERT and POSTLINE_TLS_KEY must be set together');
    const [cert, key] = await Promise.all([fs.readFile(config.tlsCertFile, 'utf8'), fs.readFile(config.tlsKeyFile, 'utf8')]);
    check({ key, cert }, `${config.tlsCertFile} / ${config.tlsKeyFile}`);
    return { key, cert, selfSigned: false };
  }
  return { ...(await selfSigned(config)), selfSigned: true };
}

/** Fails at start, with the files named, rather than at the first STARTTLS. */
function check(pair: KeyPair, where: string): void {
  try {
    const certificate = new crypto.X509Certificate(pair.cert);
    if (!certificate.checkPrivateKey(crypto.createPrivateKey(pair.key))) throw new Error('the key does not belong to the certificate');
  } catch (err) {
    throw new Error(`TLS certificate ${where}: ${(err as Error).message}`);
  }
}

async function selfSigned(config: TlsConfig): Promise<KeyPair> {
  const dir = path.join(config.dataDir, 'tls');
  const file = path.join(dir, `self-signed-${config.smtpHostname.replace(/[^A-Za-z0-9.-]/g, '_')}.pem`);
  const existing = await read(file);
  if (existing) return existing;
  await fs.mkdir(dir, { recursive: true });
  const pair = selfSignedCertificate(config.smtpHostname);
  // Written aside then linked into place: of processes starting together, one pair wins and
  // all of them use it.
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  await fs.writeFile(tmp, pair.key + pair.cert, { mode: 0o600 });
  try {
    await fs.link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fs.rm(tmp, { force: true });
  }
  return (await read(file))!;
}

async function read(file: string): Promise<KeyPair | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]*?-----END PRIVATE KEY-----\n/.exec(text)?.[0];
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/.exec(text)?.[0];
  if (!key || !cert) throw new Error(`${file} is not a key and certificate; delete it to make a new one`);
  return { key, cert };
}
