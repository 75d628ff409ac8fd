// MTA-STS (RFC 8461), the parts delivery uses: the `_mta-sts.<domain>` TXT record that
// announces a policy and its id (§3.1), the policy file (§3.2), whether an MX host is one the
// policy allows (§4.1), and fetching the policy from https://mta-sts.<domain>/.well-known/mta-sts.txt
// (§3.3). Caching the policy (mta-sts-cache.ts) and applying it (policy.ts) are the callers'.
//
// Errors are shown to users ("why is this domain's policy not applied?"), so each is one short
// sentence naming what is wrong and where. Parsing is strict where the RFC's grammar is
// (case-sensitive keys and values), as other senders reading the same policy will be: a user told
// "policy has no mode" fixes `Mode:` for all of them.
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pinnedLookup } from '../egress/destination-policy.js';

type StsMode = 'enforce' | 'testing' | 'none';

interface StsPolicy {
  mode: StsMode;
  /** MX host patterns, lower case, without a trailing dot: `mx.example.com` or `*.example.com`. */
  mx: string[];
  /** Seconds a sender may cache the policy. */
  maxAge: number;
}

type ParsedStsPolicy = { ok: true; policy: StsPolicy } | { ok: false; error: string };

/** §3.2: "maximum value of 31557600" seconds, one year. */
const MAX_STS_MAX_AGE = 31_557_600;

const STS_MODES: readonly string[] = ['enforce', 'testing', 'none'];

/**
 * §3.1: "records that do not begin with "v=STSv1;" are discarded"; the grammar's delimiter
 * allows spaces before the `;`, so `v=STSv1 ;` counts too. `v=STSv10;` and a bare `v=STSv1` do not.
 */
const STS_RECORD_START = /^v=STSv1[ \t]*;/;
/** §3.1 `sts-field`: an ext-name (alphanumeric first, up to 32) `=` printable ASCII but `=`, `;` and space. */
const STS_RECORD_FIELD = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31})=([\x21-\x3a\x3c\x3e-\x7e]+)$/;
/** §3.1 `sts-id`: 1 to 32 letters and digits. */
const STS_ID = /^[A-Za-z0-9]{1,32}$/;
/** §3.2 `sts-policy-field`: `key:` then optional spaces or tabs and the value. */
const POLICY_LINE = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31}):[ \t]*(.*?)[ \t]*$/;
/** §3.2 `sts-policy-max-age-value` = 1*10DIGIT. */
const MAX_AGE = /^[0-9]{1,10}$/;
/** §3.2 `sts-policy-mx-value` = ["*."] Domain (RFC 5321 labels; `_` tolerated as in real MX names). */
const MX_PATTERN = /^(?:\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;

/**
 * The policy id announced among the TXT records of `_mta-sts.<domain>` (each record's strings
 * already joined, §3.1), null when none announces a policy, or why the announcement is unusable.
 * Per §3.1 records that do not begin with `v=STSv1;` are discarded and, "if the number of
 * resulting records is not one, or if the resulting record is syntactically invalid, senders
 * MUST assume the recipient domain does not have an available MTA-STS Policy": an `error` means
 * exactly that for delivery (no live policy; a cached one still applies, §5.1), and tells the
 * user why.
 */
export function parseStsRecord(txtRecords: string[]): { id: string } | { error: string } | null {
  const records = txtRecords.filter((record) => STS_RECORD_START.test(record));
  if (records.length === 0) return null;
  if (records.length > 1) return { error: `${records.length} TXT records start with v=STSv1; exactly one may, so none is used` };
  let id: string | undefined;
  // After `v=STSv1`: fields separated by `;` with optional spaces or tabs around it, a trailing `;` allowed.
  const fields = records[0]!
    .slice('v=STSv1'.length)
    .replace(/[ \t]+$/, '')
    .split(/[ \t]*;[ \t]*/);
  for (const field of fields) {
    if (field === '') continue;
    const match = STS_RECORD_FIELD.exec(field);
    if (!match) return { error: `the v=STSv1 record's field ${quote(field)} is not key=value` };
    const [, key, value] = match;
    // §3.2: of a field given twice, the first counts; fields other than id are extensions, ignored.
    if (key !== 'id' || id !== undefined) continue;
    if (!STS_ID.test(value!)) return { error: `the v=STSv1 record's id ${quote(value!)} is not 1 to 32 letters and digits` };
    id = value;
  }
  return id === undefined ? { error: 'the v=STSv1 record has no id' } : { id };
}

/**
 * The policy file (§3.2): `key: value` lines separated by CRLF or LF; version, mode and max_age
 * required, mx one or more unless the mode is `none`; unknown keys ignored; of a key other
 * than mx given twice, the first counts (§3.2). The prose says CRLF, the grammar allows LF.
 */
export function parseStsPolicy(text: string): ParsedStsPolicy {
  const fields = new Map<string, string>();
  const mx: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const match = POLICY_LINE.exec(line);
    if (!match) return fail(`policy line ${index + 1} is not "key: value": ${quote(line)}`);
    const [, key, value] = match;
    if (key === 'mx') mx.push(value!);
    else if (!fields.has(key!)) fields.set(key!, value!);
  }
  const missing = (key: string) => fail(`policy has no ${key}${caseHint(key, fields)}`);

  const version = fields.get('version');
  if (version === undefined) return missing('version');
  if (version !== 'STSv1') return fail(`policy version ${quote(version)} is not STSv1`);

  const mode = fields.get('mode');
  if (mode === undefined) return missing('mode');
  if (!STS_MODES.includes(mode)) return fail(`policy mode ${quote(mode)} is not enforce, testing or none`);

  const maxAgeText = fields.get('max_age');
  if (maxAgeText === undefined) return missing('max_age');
  if (!MAX_AGE.test(maxAgeText)) return fail(`policy max_age ${quote(maxAgeText)} is not a whole number of seconds`);
  const maxAge = Number(maxAgeText);
  if (maxAge > MAX_STS_MAX_AGE) return fail(`policy max_age ${maxAge} is over ${MAX_STS_MAX_AGE} (one year)`);

  const patterns = mx.map(normalizeHost);
  const invalid = patterns.find((pattern) => !MX_PATTERN.test(pattern));
  if (invalid !== undefined) return fail(`policy mx ${quote(invalid)} is not a host name or *.domain pattern`);
  if (patterns.length === 0 && mode !== 'none') return fail(`policy has no mx (one is required unless the mode is none)${caseHint('mx', fields)}`);

  return { ok: true, policy: { mode: mode as StsMode, mx: patterns, maxAge } };
}

/**
 * §4.1: whether `mxHost` is one of the policy's MX patterns. Compared as DNS names (case
 * ignored, a trailing dot ignored); `*.example.com` stands for exactly one label more on the
 * left: `mx1.example.com`, never `example.com` nor `a.b.example.com` (the wildcard "may only be
 * used to match the entire left-most label").
 */
export function mxMatchesPolicy(mxHost: string, patterns: string[]): boolean {
  const host = normalizeHost(mxHost);
  if (host === '') return false;
  return patterns.some((raw) => {
    const pattern = normalizeHost(raw);
    if (!pattern.startsWith('*.')) return host === pattern;
    const firstDot = host.indexOf('.');
    return firstDot > 0 && host.slice(firstDot) === pattern.slice(1);
  });
}

function normalizeHost(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}

function fail(error: string): ParsedStsPolicy {
  return { ok: false, error };
}

/** ` (found "Mode:"; keys are case-sensitive)` when the policy has the key in another case. */
function caseHint(key: string, fields: Map<string, string>): string {
  const lookalike = [...fields.keys()].find((other) => other !== key && other.toLowerCase() === key);
  return lookalike ? ` (found "${lookalike}:"; keys are case-sensitive)` : '';
}

/** A value quoted in an error: bounded and escaped, since it came from the network and ends up in the UI. */
function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 61)}...` : value);
}

// --- Fetching the policy (§3.3) ---
// The host is resolved by the caller's resolver (delivery's own DNS client, not the system's)
// and its certificate checked against the NAME mta-sts.<domain> by node's default trust store
// (system CAs and NODE_EXTRA_CA_CERTS). The policy counts only if it arrives whole within one
// deadline: a 200, text/plain, no larger than maxBytes; a redirect is an error, never followed
// ("HTTP 3xx redirects MUST NOT be followed"). Never throws: every failure is a sentence.

interface StsFetchOptions {
  /** The host's addresses (IPv4 first, as DnsResolver.addresses gives them); [] when it has none. */
  lookup: (host: string) => Promise<string[]>;
  /** One deadline for DNS, connect, TLS, headers and body. */
  timeoutMs?: number;
  /** A larger policy is refused as soon as its size shows, the rest unread. */
  maxBytes?: number;
  /** 443; another only for tests that cannot bind 443. */
  port?: number;
}

type FetchedStsPolicy = { ok: true; policy: StsPolicy; text: string } | { ok: false; error: string };

const DEFAULT_TIMEOUT_MS = 10_000;
/** §3.3 suggests senders bound the body; 64 KiB is far beyond any real policy. */
const DEFAULT_MAX_BYTES = 64 * 1024;
const POLICY_PATH = '/.well-known/mta-sts.txt';

/** Certificate errors that mean "no trusted authority vouches for it" (OpenSSL's verify codes). */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_CA',
]);

/** A failure already worded for the user, host included. */
class PolicyFetchError extends Error {}

/** The policy of `domain`, or why there is none to apply. */
export async function fetchStsPolicy(domain: string, options: StsFetchOptions): Promise<FetchedStsPolicy> {
  const host = `mta-sts.${domain.trim().toLowerCase().replace(/\.+$/, '')}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const addresses = await resolvePolicyHost(host, options.lookup, deadline.signal, timeoutMs);
    const text = await getPolicyText({
      host,
      addresses,
      port: options.port ?? 443,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
      deadline: deadline.signal,
      timeoutMs,
    });
    const parsed = parseStsPolicy(text);
    return parsed.ok ? { ok: true, policy: parsed.policy, text } : { ok: false, error: `${host}: ${parsed.error}` };
  } catch (err) {
    return { ok: false, error: err instanceof PolicyFetchError ? err.message : `${host}: ${(err as Error)?.message ?? String(err)}` };
  } finally {
    clearTimeout(timer);
  }
}

async function resolvePolicyHost(host: string, lookup: StsFetchOptions['lookup'], deadline: AbortSignal, timeoutMs: number): Promise<string[]> {
  let addresses: string[];
  try {
    // The caller's lookup may not take a signal: the deadline races it instead.
    addresses = await new Promise<string[]>((resolve, reject) => {
      const onDeadline = () => reject(new PolicyFetchError(`${host}: timed out after ${duration(timeoutMs)} resolving the host`));
      deadline.addEventListener('abort', onDeadline, { once: true });
      Promise.resolve()
        .then(() => lookup(host))
        .then(resolve, reject)
        .finally(() => deadline.removeEventListener('abort', onDeadline));
    });
  } catch (err) {
    if (err instanceof PolicyFetchError) throw err;
    throw new PolicyFetchError(`${host}: DNS lookup failed (${(err as Error)?.message ?? String(err)})`);
  }
  const usable = addresses.filter((address) => net.isIP(address) !== 0);
  if (usable.length === 0) throw new PolicyFetchError(`${host} has no address`);
  return usable;
}

interface PolicyRequest {
  host: string;
  addresses: string[];
  port: number;
  maxBytes: number;
  deadline: AbortSignal;
  timeoutMs: number;
}

/** The body of a 200 text/plain answer, whole; anything else rejects with a PolicyFetchError. */
function getPolicyText({ host, addresses, port, maxBytes, deadline, timeoutMs }: PolicyRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    // What the deadline interrupted, for the message: a host that accepts TCP and never
    // speaks TLS reads differently from one that trickles its body.
    let phase = 'connecting';
    let settled = false;
    const settle = (error: string | undefined, text?: string) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      if (error === undefined) return resolve(text!);
      request.destroy();
      reject(new PolicyFetchError(error));
    };
    const onDeadline = () => settle(`${host}: timed out after ${duration(timeoutMs)} ${phase}`);

    const request = https.request(
      {
        hostname: host,
        port,
        path: POLICY_PATH,
        method: 'GET',
        headers: { 'user-agent': 'Postline (MTA-STS policy fetch)', accept: 'text/plain', 'accept-encoding': 'identity' },
        // Connect to the caller's addresses; TLS still verifies the certificate against the name.
        lookup: pinnedLookup(addresses),
        servername: host,
        rejectUnauthorized: true,
        // A connection of its own: nothing pooled outlives the deadline or is shared with another fetch.
        agent: false,
      },
      (response) => {
        phase = 'reading the policy';
        const refusal = refuseResponse(host, response, maxBytes);
        if (refusal) return settle(refusal);
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return settle(`${host}: policy larger than ${bytes(maxBytes)}`);
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            settle(undefined, new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size)));
          } catch {
            settle(`${host}: policy is not UTF-8 text`);
          }
        });
        response.on('error', (err) => settle(describeFailure(host, err)));
        // Closed before 'end' (the server hung up mid-body); settled already otherwise.
        response.on('close', () => settle(`${host}: connection closed before the end of the policy`));
      },
    );
    request.on('socket', (socket) => {
      socket.once('connect', () => (phase = 'during the TLS handshake'));
      socket.once('secureConnect', () => (phase = 'waiting for the answer'));
    });
    request.on('error', (err) => settle(describeFailure(host, err)));
    if (deadline.aborted) return onDeadline();
    deadline.addEventListener('abort', onDeadline, { once: true });
    request.end();
  });
}

/** Why a response's head already disqualifies it (§3.3: only a 200; §3.2: text/plain), or undefined. */
function refuseResponse(host: string, response: IncomingMessage, maxBytes: number): string | undefined {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) return `${host} answered ${status} (redirects are refused)`;
  if (status !== 200) return `${host} answered ${status} (a policy comes only with 200)`;
  // §3.2: senders SHOULD check the media type is text/plain, so a host where users may place
  // files (HTML, images) cannot be made to serve a policy; parameters such as charset are fine.
  const contentType = response.headers['content-type'];
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'text/plain') return `${host} sent ${contentType ? JSON.stringify(contentType.slice(0, 64)) : 'no content type'} (a policy is text/plain)`;
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') return `${host} sent a ${JSON.stringify(encoding.slice(0, 32))}-encoded policy, not plain text`;
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return `${host}: policy larger than ${bytes(maxBytes)} (${declared} bytes announced)`;
  return undefined;
}

function describeFailure(host: string, err: Error & { code?: string }): string {
  const code = err.code ?? '';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `${host}: certificate not valid for the host (${code})`;
  if (code === 'CERT_HAS_EXPIRED') return `${host}: certificate expired (${code})`;
  if (code === 'CERT_NOT_YET_VALID') return `${host}: certificate not yet valid (${code})`;
  if (UNTRUSTED_CERTIFICATE.has(code)) return `${host}: certificate not issued by a trusted authority (${code})`;
  if (code === 'ECONNREFUSED') return `${host}: connection refused`;
  if (code === 'ECONNRESET') return `${host}: connection reset`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host}: unreachable (${code})`;
  if (code === 'ETIMEDOUT') return `${host}: connection timed out`;
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_')) return `${host}: TLS handshake failed (${code})`;
  if (code.startsWith('HPE_')) return `${host}: not a valid HTTP answer (${code})`;
  return `${host}: ${err.message}${code ? ` (${code})` : ''}`;
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function bytes(count: number): string {
  return count % 1024 === 0 ? `${count / 1024} KiB` : `${count} bytes`;
}
