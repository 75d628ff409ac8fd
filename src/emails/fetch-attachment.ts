// Fetching an attachment given by `path` (an http or https URL) at accept time, without
// becoming a way into the installation's network (SSRF): the destination rule is egress/'s,
// the same as webhooks' (POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE opens it):
// - the host is resolved first and EVERY address it has must be allowed; the connection goes
//   to the addresses that were checked (pinned), so a second DNS answer cannot rebind it;
// - redirects are followed, at most MAX_REDIRECTS, each target checked the same way;
// - one deadline covers every hop and the body; the body may not exceed the size the email
//   still has room for, checked on Content-Length and again while reading.
import type http from 'node:http';
import { ApiError } from '../api/errors.js';
import { pinnedRequest, type DestinationPolicy } from '../egress/destination-policy.js';

export interface FetchPolicy {
  destinations: DestinationPolicy;
  timeoutMs: number;
}

interface Fetched {
  content: Buffer;
  /** The response's media type (no parameters), when it sent a plausible one. */
  contentType: string | undefined;
  /** The URL the body came from, after redirects. */
  url: URL;
}

const MAX_REDIRECTS = 3;
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/;

const fail = (field: string, reason: string) => new ApiError('invalid_attachment', `The attachment at \`${field}\` could not be fetched: ${reason}.`);

/** GETs `url`, at most `maxBytes` of body. Throws 422 invalid_attachment naming `field`. */
export async function fetchAttachment(url: URL, maxBytes: number, policy: FetchPolicy, field: string): Promise<Fetched> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    const addresses = await checkedAddresses(current, policy, field);
    const response = await get(current, addresses, signal, field);
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
    const type = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    return { content, contentType: MEDIA_TYPE.test(type) ? type : undefined, url: current };
  }
}

/** The URL's allowed addresses, to connect to nowhere else. */
async function checkedAddresses(url: URL, policy: FetchPolicy, field: string): Promise<string[]> {
  try {
    return await policy.destinations.addresses(url);
  } catch (err) {
    throw fail(field, (err as Error).message);
  }
}

function get(url: URL, addresses: string[], signal: AbortSignal, field: string): Promise<http.IncomingMessage> {
  return pinnedRequest(url, { method: 'GET', addresses, signal, userAgent: 'Postline (attachment fetch)' }).catch((err) => {
    throw signal.aborted ? fail(field, 'timed out') : fail(field, describe(err));
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
