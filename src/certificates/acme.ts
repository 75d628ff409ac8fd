// ACME (RFC 8555): one certificate for a set of host names from a CA such as Let's Encrypt,
// proved by http-01 (§8.3, a file on port 80) or tls-alpn-01 (RFC 8737, a certificate on 443).
// acme-client speaks the protocol (JWS, nonces, polling); this file is the order as named steps,
// `directory → account → order → challenge (each host) → finalize → download`, and errors that
// say which step failed, for which host, with the CA's own problem detail, because an operator
// reads them to fix DNS, a firewall or a port. Storing the account key and certificate,
// renewing, and reloading the listeners are the caller's; so is serving the challenge, through a
// ChallengeResponder (own-certificate.ts keeps them for challenge-responders.ts's servers).
import crypto from 'node:crypto';
import https from 'node:https';
import acme, { type Authorization, type Client } from 'acme-client';
import { certificateSigningRequest } from './acme-x509.js';

export type ChallengeType = 'http-01' | 'tls-alpn-01';

/**
 * What the CA must find to believe we hold `hostname`: for http-01, `keyAuthorization` as text at
 * http://<hostname>/.well-known/acme-challenge/<token> (port 80); for tls-alpn-01, a certificate
 * whose acmeIdentifier is its digest (acme-x509.ts) presented to a TLS client that asks for
 * `hostname` with ALPN `acme-tls/1` (port 443).
 */
export interface PublishedChallenge {
  type: ChallengeType;
  hostname: string;
  token: string;
  keyAuthorization: string;
}

/** Where the caller serves challenges: published before the CA is asked to look, unpublished after. */
export interface ChallengeResponder {
  publish(challenge: PublishedChallenge): void | Promise<void>;
  unpublish(challenge: PublishedChallenge): void | Promise<void>;
}

interface ObtainCertificateOptions {
  directoryUrl: string;
  /** The account's contact; registering it means agreeing to the CA's terms of service. */
  email: string;
  /** The account's private key (PEM) from an earlier call; a new account is made without it. */
  accountKey?: string;
  /** The certificate's names; the first is its subject's CN. */
  hostnames: string[];
  challenge: ChallengeType;
  responder: ChallengeResponder;
  /** PEM certificates trusted for the directory's HTTPS instead of node's (a private ACME CA). */
  ca?: string;
  /** For the whole order; each step fails with its name once it has run out. */
  timeoutMs?: number;
}

interface ObtainedCertificate {
  /** The certificate's private key (PKCS#8 PEM), new for every order. */
  key: string;
  /** Leaf first, then the CA's intermediates (PEM), as a server presents them. */
  cert: string;
  notAfter: Date;
  /** The account key used: the one given, or the one made; keep it for the next order. */
  accountKey: string;
}

type AcmeStep = 'directory' | 'account' | 'order' | 'challenge' | 'finalize' | 'download';

/** `ACME <step> [for <host names>] failed: <detail>`; `detail` is the CA's problem detail where it gave one. */
export class AcmeError extends Error {
  constructor(
    readonly step: AcmeStep,
    readonly hostname: string | undefined,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`ACME ${step}${hostname ? ` for ${hostname}` : ''} failed: ${detail}`, options);
    this.name = 'AcmeError';
  }
}

/** Let's Encrypt polls for minutes at worst; an order that takes longer is stuck. */
const DEFAULT_TIMEOUT_MS = 300_000;
/** A CA's directory is a static document; one that takes longer is not answering. */
const DIRECTORY_TIMEOUT_MS = 30_000;
/** Polling a pending challenge or order: 1 s, doubling to 10 s (acme-client's backoff), 30 times at most. */
const POLLING = { backoffMin: 1_000, backoffMax: 10_000, backoffAttempts: 30 };

export async function obtainCertificate(options: ObtainCertificateOptions): Promise<ObtainedCertificate> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = { at: Date.now() + timeoutMs, timeoutMs };
  const step = <T>(name: AcmeStep, hostname: string | undefined, work: () => Promise<T>) => runStep(name, hostname, deadline, work);
  const directory = parseDirectoryUrl(options.directoryUrl);
  if (options.hostnames.length === 0) throw new AcmeError('order', undefined, 'no host names to order a certificate for');
  const accountKey = options.accountKey ?? newPrivateKey();
  const trust = options.ca ? trustForOrigin(directory.origin, options.ca) : undefined;
  try {
    await step('directory', undefined, () => checkDirectory(directory, trust?.agent));
    const client = new acme.Client({ directoryUrl: directory.href, accountKey, ...POLLING });
    await step('account', undefined, () => client.createAccount({ termsOfServiceAgreed: true, contact: [`mailto:${options.email}`] }));
    const identifiers = options.hostnames.map((value) => ({ type: 'dns', value }));
    const order = await step('order', options.hostnames.join(', '), () => client.createOrder({ identifiers }));
    const authorizations = await step('order', options.hostnames.join(', '), () => client.getAuthorizations(order));
    await authorizeAll(client, authorizations, options, step);
    const key = newPrivateKey();
    const finalized = await step('finalize', undefined, () => client.finalizeOrder(order, certificateSigningRequest(key, options.hostnames)));
    const cert = await step('download', undefined, () => client.getCertificate(finalized));
    const notAfter = await step('download', undefined, async () => checkCertificate(cert, key, options.hostnames));
    return { key, cert, notAfter, accountKey };
  } finally {
    trust?.release();
  }
}

/**
 * Proves every host of the order at once, each with its own challenge, and fails naming every
 * host that could not be proved (a renewal of three names that fails on one says which).
 */
async function authorizeAll(
  client: Client,
  authorizations: Authorization[],
  options: ObtainCertificateOptions,
  step: <T>(name: AcmeStep, hostname: string | undefined, work: () => Promise<T>) => Promise<T>,
): Promise<void> {
  const results = await Promise.allSettled(
    authorizations.map((authorization) => step('challenge', authorization.identifier.value, () => authorize(client, authorization, options))),
  );
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as AcmeError] : []));
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) {
    const hostnames = failures.map((f) => f.hostname).join(', ');
    throw new AcmeError('challenge', hostnames, failures.map((f) => `${f.hostname}: ${f.detail}`).join('; '), { cause: failures[0] });
  }
}

async function authorize(client: Client, authorization: Authorization, options: ObtainCertificateOptions): Promise<void> {
  const hostname = authorization.identifier.value;
  // The CA may reuse a recent proof for the same account (RFC 8555 §7.1.4); nothing to serve then.
  if (authorization.status === 'valid') return;
  const challenge = authorization.challenges.find((c) => c.type === options.challenge);
  if (!challenge) {
    const offered = authorization.challenges.map((c) => c.type).join(', ') || 'none';
    throw new Error(`the CA offers no ${options.challenge} challenge (offered: ${offered})`);
  }
  const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
  const published: PublishedChallenge = { type: options.challenge, hostname, token: challenge.token, keyAuthorization };
  let answered = false;
  try {
    await options.responder.publish(published);
    await client.completeChallenge(challenge);
    answered = true;
    await client.waitForValidStatus(challenge);
  } catch (err) {
    // An authorization left pending counts against the account's limit until it expires
    // (Let's Encrypt: 300 pending, for a week); once the CA has looked it is settled anyway.
    if (!answered) await client.deactivateAuthorization(authorization).catch(() => {});
    throw new Error(`${options.challenge} challenge: ${(err as Error).message}`, { cause: err });
  } finally {
    try {
      await options.responder.unpublish(published);
    } catch {
      // A challenge left published is harmless: its token is never asked for again.
    }
  }
}

/** P-256, as the self-signed certificate (smtp/self-signed.ts); Let's Encrypt and other public ACME CAs take it. */
function newPrivateKey(): string {
  return crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** RFC 8555 §6.1: ACME is HTTPS only. */
function parseDirectoryUrl(directoryUrl: string): URL {
  let url: URL;
  try {
    url = new URL(directoryUrl);
  } catch {
    throw new AcmeError('directory', undefined, `${directoryUrl} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new AcmeError('directory', undefined, `${directoryUrl} is not an https: URL (RFC 8555 §6.1)`);
  return url;
}

/**
 * Reads the directory once before acme-client does: acme-client retries a request that got no
 * answer five times over 75 s, right for a CA that blinks, not for one that is not there or
 * whose certificate we do not trust, which this reports at once, naming the URL.
 */
async function checkDirectory(directory: URL, agent: https.Agent | undefined): Promise<void> {
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = https.get(directory, { agent: agent ?? https.globalAgent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.setTimeout(DIRECTORY_TIMEOUT_MS, () => request.destroy(new Error(`no answer within ${DIRECTORY_TIMEOUT_MS / 1000} s`)));
    request.on('error', (err: NodeJS.ErrnoException) => {
      const untrusted = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(err.code ?? '');
      reject(new Error(`${directory.href}: ${err.message}${untrusted ? ' (its certificate is not trusted: give its CA)' : ''}`, { cause: err }));
    });
  });
  if (status !== 200) throw new Error(`${directory.href} answered HTTP ${status}`);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`${directory.href} did not answer JSON`);
  }
  if (typeof parsed.newOrder !== 'string' || typeof parsed.newAccount !== 'string') throw new Error(`${directory.href} is not an ACME directory`);
}

/** The CA's chain, checked before anyone stores or serves it: our key, every name, then its expiry. */
function checkCertificate(chain: string, key: string, hostnames: string[]): Date {
  const leafPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(chain)?.[0];
  if (!leafPem) throw new Error('the CA sent no certificate');
  const leaf = new crypto.X509Certificate(leafPem);
  if (!leaf.checkPrivateKey(crypto.createPrivateKey(key))) throw new Error('the certificate is not for the key we sent');
  const missing = hostnames.filter((hostname) => !leaf.checkHost(hostname, { wildcards: false }));
  if (missing.length) throw new Error(`the certificate does not name ${missing.join(', ')}`);
  return new Date(leaf.validTo);
}

/**
 * Runs one step against the order's deadline and names it in any error. A step abandoned at the
 * deadline may still finish in the background; no later step starts.
 */
async function runStep<T>(step: AcmeStep, hostname: string | undefined, deadline: { at: number; timeoutMs: number }, work: () => Promise<T>): Promise<T> {
  const outOfTime = () => new AcmeError(step, hostname, `not done within the order's ${deadline.timeoutMs} ms`);
  const remaining = deadline.at - Date.now();
  if (remaining <= 0) throw outOfTime();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(outOfTime()), remaining);
  });
  try {
    return await Promise.race([work(), timedOut]);
  } catch (err) {
    if (err instanceof AcmeError) throw err;
    throw new AcmeError(step, hostname, (err as Error).message, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Trust for a private ACME CA, scoped to its origin. acme-client sends every request through its
 * own axios instance (`acme.axios`, made with axios.create(), not axios's global defaults); one
 * request interceptor on it gives requests to a registered origin that origin's https.Agent
 * (its `ca`), and leaves every other request, and every other HTTPS user in the process, with
 * node's trust store. Orders to one origin at the same time must agree on its CA.
 */
const trustedOrigins = new Map<string, { ca: string; agent: https.Agent; orders: number }>();
let interceptorInstalled = false;

function trustForOrigin(origin: string, ca: string): { agent: https.Agent; release(): void } {
  if (!interceptorInstalled) {
    acme.axios.interceptors.request.use((config) => {
      const trusted = config.url && URL.canParse(config.url) ? trustedOrigins.get(new URL(config.url).origin) : undefined;
      if (trusted) config.httpsAgent = trusted.agent;
      return config;
    });
    interceptorInstalled = true;
  }
  let entry = trustedOrigins.get(origin);
  if (entry && entry.ca !== ca) throw new AcmeError('directory', undefined, `another order to ${origin} is running with a different CA`);
  if (!entry) trustedOrigins.set(origin, (entry = { ca, agent: new https.Agent({ ca, keepAlive: true }), orders: 0 }));
  entry.orders++;
  const trusted = entry;
  return {
    agent: trusted.agent,
    release() {
      if (--trusted.orders > 0) return;
      trustedOrigins.delete(origin);
      trusted.agent.destroy();
    },
  };
}
