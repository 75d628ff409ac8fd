// Attachments of POST /emails (resend-compat-notes §10), in two steps of the accept pipeline:
// - attachmentRequests (validate), on attachments ATTACHMENT_SCHEMA checked: each has exactly
//   one of `content` (base64, or the `{"type":"Buffer","data":[…]}` form a Buffer takes in JSON)
//   or `path` (an http(s) URL); content is decoded here, so bad base64 is refused before any
//   work is done. Those two are judged here, not by the schema: Resend refuses them as
//   invalid_attachment, not validation_error;
// - loadAttachments (after the sender domain is known): paths are fetched (fetch-attachment.ts),
//   names and content types settled, and the whole email held to 40 MB after base64 encoding.
// MailComposer then writes them (compose.ts) and attachment-parts.ts records where each one
// sits in the signed message, which is where downloads read it from.
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import { ApiError, validation } from '../api/errors.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE } from '../api/limits.js';
import { constant, input, type JsonSchema, string } from '../api/schema.js';
import { fetchAttachment, type FetchPolicy } from './fetch-attachment.js';

/** An attachment as validated: its content decoded, or the URL to fetch it from. */
export interface AttachmentRequest {
  filename: string | null;
  contentType: string | null;
  contentId: string | null;
  content?: Buffer;
  path?: URL;
}

/** An attachment ready to compose. */
export interface Attachment {
  filename: string;
  contentType: string;
  /** Set: an inline part, referenced from the html as `cid:<contentId>`. */
  contentId: string | null;
  disposition: 'inline' | 'attachment';
  content: Buffer;
}

/** An attachment that passed ATTACHMENT_SCHEMA: `content` and `path` are still to judge. */
export interface AttachmentBody {
  content?: unknown;
  path?: unknown;
  /** The SDK's type allows `false` (no name), as nodemailer does. */
  filename?: string | false;
  content_type?: string;
  content_id?: string;
}

/** type/subtype with optional parameters; never a line break. */
const CONTENT_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\\\r\n]*"))*$/;
const NO_LINE_BREAKS = '^[^\\r\\n\\u0000]*$';

/** One attachment of POST /emails: its check (with the email's, request-schema.ts) and its description. */
export const ATTACHMENT_SCHEMA: JsonSchema = input(
  {
    // Not checks: another value is Resend's invalid_attachment (attachmentRequests).
    content: { description: 'The file: base64, or a Node Buffer as JSON (`{"type":"Buffer","data":[…bytes]}`).' },
    path: { description: 'An http(s) URL the file is fetched from, instead of `content`.', examples: ['https://example.com/invoice.pdf'] },
    filename: {
      anyOf: [string({ maxLength: 255, anyOf: [{ pattern: NO_LINE_BREAKS, 'x-message': 'not contain line breaks' }] }), constant(false)],
      description: 'Default: from the `path`, else `attachment-<n>`.',
    },
    content_type: string({
      pattern: CONTENT_TYPE.source,
      'x-message': 'be a media type such as `application/pdf`',
      description: 'Default: from the file name.',
    }),
    content_id: string({
      pattern: '^[!-;=?-~]{1,127}$',
      'x-message': 'be under 128 printable characters without spaces or angle brackets',
      description: 'Makes it an inline part, referenced from the html as `cid:<content_id>`.',
    }),
  },
  [],
  { description: 'Exactly one of `content` and `path` (else `invalid_attachment`).' },
);

/** Bytes of `size` bytes once base64-encoded. */
const encodedSize = (size: number) => 4 * Math.ceil(size / 3);

const invalid = (message: string) => new ApiError('invalid_attachment', message);

/** Attachments ATTACHMENT_SCHEMA checked, their content decoded and paths read. */
export function attachmentRequests(attachments: AttachmentBody[] | undefined): AttachmentRequest[] | null {
  return attachments ? attachments.map((attachment, i) => attachmentRequest(attachment, `attachments[${i}]`)) : null;
}

function attachmentRequest(body: AttachmentBody, where: string): AttachmentRequest {
  const hasContent = body.content !== undefined && body.content !== '';
  const hasPath = body.path !== undefined && body.path !== '';
  if (!hasContent && !hasPath) throw invalid('Attachment must have either a `content` or `path`.');
  if (hasContent && hasPath) throw invalid('Attachment must have either a `content` or `path`, not both.');
  return {
    filename: body.filename || null,
    contentType: body.content_type ?? null,
    contentId: body.content_id ?? null,
    ...(hasContent ? { content: decodeContent(body.content, `${where}.content`) } : { path: parsePath(body.path, `${where}.path`) }),
  };
}

function parsePath(value: unknown, field: string): URL {
  let url: URL | undefined;
  if (typeof value === 'string') {
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw invalid(`The \`${field}\` field must be an http or https URL.`);
  if (url.username || url.password) throw invalid(`The \`${field}\` URL must not carry credentials.`);
  return url;
}

/** A base64 string, or the `{"type":"Buffer","data":[…]}` form JSON gives a Node Buffer. */
function decodeContent(value: unknown, field: string): Buffer {
  if (typeof value === 'string') return decodeBase64(value, field);
  const json = value as { type?: unknown; data?: unknown };
  if (typeof value === 'object' && json.type === 'Buffer' && Array.isArray(json.data) && Object.keys(json).length === 2) {
    const data = json.data as unknown[];
    for (const byte of data) {
      if (!Number.isInteger(byte) || (byte as number) < 0 || (byte as number) > 255) {
        throw invalid(`The \`${field}\` Buffer must hold bytes (integers from 0 to 255).`);
      }
    }
    return Buffer.from(data as number[]);
  }
  throw invalid(`The \`${field}\` field must be a base64 string or a Buffer.`);
}

const BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64[c.charCodeAt(0)] = 1;
for (const c of '\r\n\t ') BASE64[c.charCodeAt(0)] = 2;

/**
 * Strict base64 (Node's decoder skips what it does not understand, so a damaged file would
 * otherwise go out silently truncated). The common case, canonical base64, is checked by
 * re-encoding, several times faster than a scan; anything else (line breaks, missing
 * padding) is scanned character by character.
 */
function decodeBase64(text: string, field: string): Buffer {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') === text) return bytes;
  const bad = () => invalid(`The \`${field}\` field is not valid base64.`);
  let end = text.length;
  let padding = 0;
  for (; end > 0; end--) {
    const c = text.charCodeAt(end - 1);
    if (c === 61)
      padding++; // '='
    else if (BASE64[c] !== 2) break; // whitespace around the padding is fine
  }
  let significant = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const kind = c < 128 ? BASE64[c] : 0;
    if (kind === 1) significant++;
    else if (kind !== 2) throw bad();
  }
  // Unpadded is accepted; padding, when present, must complete the last group.
  if (significant % 4 === 1 || padding > 2 || (padding > 0 && (significant + padding) % 4 !== 0)) throw bad();
  return bytes;
}

/**
 * The load step: fetches every `path`, then settles names and types. `bodyBytes` is what the
 * html and text parts take; the email as a whole may not exceed MAX_EMAIL_BYTES.
 */
export async function loadAttachments(requests: AttachmentRequest[], bodyBytes: number, policy: FetchPolicy): Promise<Attachment[]> {
  let used = bodyBytes + requests.reduce((sum, a) => sum + (a.content ? encodedSize(a.content.length) : 0), 0);
  if (used > MAX_EMAIL_BYTES) throw tooLarge();
  const attachments: Attachment[] = [];
  // One at a time: each fetch may take only what the email still has room for.
  for (const [i, request] of requests.entries()) {
    let content = request.content;
    let fetchedType: string | undefined;
    if (!content) {
      const room = Math.floor((MAX_EMAIL_BYTES - used) / 4) * 3;
      const fetched = await fetchAttachment(request.path!, room, policy, `attachments[${i}].path`);
      content = fetched.content;
      fetchedType = fetched.contentType;
      used += encodedSize(content.length);
      if (used > MAX_EMAIL_BYTES) throw tooLarge();
    }
    const name = request.filename ?? nameFromPath(request.path) ?? `attachment-${i + 1}`;
    attachments.push({
      filename: name,
      contentType: request.contentType ?? contentTypeOf(name, fetchedType),
      contentId: request.contentId,
      disposition: request.contentId ? 'inline' : 'attachment',
      content,
    });
  }
  return attachments;
}

function tooLarge(): ApiError {
  return validation(`The email is larger than the maximum of ${MAX_EMAIL_SIZE} (attachments counted after base64 encoding).`);
}

/** The last segment of the URL's path, as MailComposer names a file fetched from a URL. */
function nameFromPath(url: URL | undefined): string | null {
  const segment = url?.pathname.split('/').pop();
  if (!segment) return null;
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    /* keep it encoded */
  }
  return /[\r\n\0]/.test(name) || name.length > 255 ? null : name;
}

/** From the file name's extension; else what the server said; else application/octet-stream. */
function contentTypeOf(filename: string, fetched: string | undefined): string {
  const byName = filename.includes('.') ? mimeFuncs.detectMimeType(filename) : 'application/octet-stream';
  return byName === 'application/octet-stream' && fetched ? fetched : byName;
}
