// Fetching an attachment given by `path` (an http or https URL) at accept time, without
// becoming a way into the installation's network (SSRF):
// - the host is resolved first and EVERY address it has must be public (no loopback, private,
//   link-local, CGNAT, multicast or reserved ranges) unless the operator allows private ones
//   (POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE, for tests and closed networks);
// - the connection goes to the address that was checked (the socket's lookup is pinned), so a
//   second, different DNS answer (rebinding) cannot redirect it;
// - redirects are followed, at most MAX_REDIRECTS, each target checked the same way;
// - one deadline covers every hop and the body; the body may not exceed the size the email
//   still has room for, checked on Content-Length and again while reading.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { ApiError } from '../api/errors.js';

export interface FetchPolicy {
  allowPrivate: boolean;
  timeoutMs: number;
  /** A host's IPv4 and IPv6 addresses (the installation's DNS resolver). */
  resolve(host: string): Promise<string[]>;
}

export interface Fetched {
  content: Buffer;
  /** The response's media type (no parameters), when it sent a plausible one. */
  contentType: string | undefined;
  /** The URL the body came from, after redirects. */
  url: URL;
}

const MAX_REDIRECTS = 3;
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

/** Address ranges that are not the public internet (RFC 6890 and friends). */
const NOT_PUBLIC = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NOT_PUBLIC.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128], ['::1', 128], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NOT_PUBLIC.addSubnet(prefix, bits, 'ipv6');

/** Whether an address is outside the public internet. IPv4-mapped IPv6 is judged as IPv4. */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits: judge that one.
    const nat64 = /^64:ff9b::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (nat64) {
      const n = (parseInt(nat64[1]!, 16) << 16) | parseInt(nat64[2]!, 16);
      return NOT_PUBLIC.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
    }
    return NOT_PUBLIC.check(address, 'ipv6');
  }
  return NOT_PUBLIC.check(address, 'ipv4');
}

const fail = (field: string, reason: string) => new ApiError('invalid_attachment', `The attachment at \`${field}\` could not be fetched: ${reason}.`);

/** GETs `url`, at most `maxBytes` of body. Throws 422 invalid_attachment naming `field`. */
export async function fetchAttachment(url: URL, maxBytes: number, policy: FetchPolicy, field: string): Promise<Fetched> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    const address = await checkedAddress(current, policy, field);
    const response = await get(current, address, signal, field);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (hop >= MAX_REDIRECTS) throw fail(field, `more than ${MAX_REDIRECTS} redirects`);
      let next: URL;
      try {
        next = new URL(response.headers.location, current);
      } catch {
        throw fail(field, 'a redirect to an invalid URL');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw fail(field, 'a redirect to a URL that is not http or https');
      current = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw fail(field, `the server answered HTTP ${status}`);
    }
    const content = await readBody(response, maxBytes, signal, field);
    const type = String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    return { content, contentType: MEDIA_TYPE.test(type) ? type : undefined, url: current };
  }
}

/** Resolves the URL's host and returns an address to connect to, after checking them all. */
async function checkedAddress(url: URL, policy: FetchPolicy, field: string): Promise<string> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    throw fail(field, `the host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw fail(field, `the host ${host} has no address`);
  if (!policy.allowPrivate && addresses.some(isNonPublicAddress)) {
    throw fail(field, `the host ${host} has a private, loopback or reserved address`);
  }
  return addresses[0]!;
}

function get(url: URL, address: string, signal: AbortSignal, field: string): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = net.isIP(address);
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'user-agent': 'Postline (attachment fetch)', accept: '*/*', 'accept-encoding': 'identity' },
        // Pinned: connect to the address that was checked, whatever DNS answers now. TLS still
        // verifies the certificate against the host name (servername below).
        lookup: ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options?.all ? callback(null, [{ address, family }]) : callback(null, address, family)) as never,
        servername: net.isIP(host) ? undefined : host,
        agent: false,
        signal,
      },
      resolve,
    );
    request.on('error', (err) => reject(signal.aborted ? fail(field, 'timed out') : fail(field, describe(err))));
    request.end();
  });
}

function readBody(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal, field: string): Promise<Buffer> {
  const tooLarge = () => fail(field, `the file is larger than the ${Math.floor(maxBytes / 1024 / 1024)} MB the email has room for`);
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks, size)));
    response.on('error', (err) => reject(signal.aborted ? fail(field, 'timed out') : fail(field, describe(err))));
    // Closed before the end (the deadline, or the server hung up): settled already if it ended.
    response.on('close', () => reject(signal.aborted ? fail(field, 'timed out') : fail(field, 'the connection was closed early')));
  });
}

function describe(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
    case 'ABORT_ERR':
      return 'timed out';
    default:
      return err.code ? `${err.code}` : 'the request failed';
  }
}
