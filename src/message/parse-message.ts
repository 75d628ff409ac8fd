// Parsing messages with postal-mime, for submission and for inbound mail:
//   parse       a submitted message into what submission needs: the header fields, the html
//               and text bodies, and a hash of each attachment (for Resend-Idempotency-Key);
//   parseForSubmission  the same, but for a message of up to INLINE_MAX_BYTES only its header
//               section (header-fields.ts, postal-mime's rules without its whole parse): its
//               bodies stay in the stored message until GET /emails/:id reads them
//               (src/emails/get-email.ts). Decoding bodies was most of a small submission's
//               parse, on the event loop every SMTP session shares;
//   parseEmail  any message into postal-mime's whole Email (src/inbound/: received mail, its
//               downloads, DSN and ARF reports).
//
// Speed: postal-mime collects each part's lines in a Blob, which on Node 20 costs ~10 µs per
// line: nothing for a small message, but seconds for a large one (5 s for 38 MB of text), all
// of it on the event loop, stalling every other session and the API of the process. Messages
// over INLINE_MAX_BYTES are therefore parsed in a worker thread (parse-worker.ts), the same
// code, so the event loop only copies the bytes over (and takes the attachments' bytes back
// without a copy). One worker per process (`messageParser`), shared by SMTP and inbound mail.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import PostalMime, { type Address, type Email } from 'postal-mime';
import { readHeaderFields } from './header-fields.js';

export interface ParsedSubmission {
  /** Header fields in message order: lower-case name and value, unfolded. */
  headers: { key: string; value: string }[];
  subject: string | undefined;
  to: Address[];
  cc: Address[];
  replyTo: Address[];
  /** What the body holds; undefined when only the header section was parsed. */
  bodies?: MessageBodies;
}

export interface MessageBodies {
  html: string | null;
  text: string | null;
  attachments: { filename: string | null; mimeType: string; sha256: string }[];
}

const INLINE_MAX_BYTES = 64 * 1024;

/** The message itself cannot be parsed (as opposed to the parser failing): a permanent refusal. */
export class UnparseableMessage extends Error {}

/** What a parse returns: a submission's summary, or postal-mime's whole Email. */
export type ParseKind = 'submission' | 'email';
type Parsed<K extends ParseKind> = K extends 'submission' ? ParsedSubmission : Email;

/** postal-mime's options for every parse here (attachment downloads re-parse with the same ones). */
const OPTIONS = { attachmentEncoding: 'arraybuffer' } as const;

export async function parseInProcess<K extends ParseKind>(raw: Uint8Array, kind: K): Promise<Parsed<K>> {
  let email: Email;
  try {
    email = await PostalMime.parse(raw, OPTIONS);
  } catch (err) {
    throw new UnparseableMessage((err as Error).message);
  }
  return (kind === 'submission' ? describe(email) : email) as Parsed<K>;
}

/** The attachments' bytes of a parsed Email, moved (not copied) between threads. */
export function transferablesOf(result: ParsedSubmission | Email): ArrayBuffer[] {
  if (!('attachments' in result) || !Array.isArray(result.attachments)) return [];
  const buffers = (result as Email).attachments.flatMap((a) => (a.content instanceof ArrayBuffer ? [a.content] : []));
  return [...new Set(buffers)]; // a buffer listed twice cannot be transferred
}

/** The header fields of a parsed message: all that accepting a submission needs. */
function describeHeaders(email: Email): ParsedSubmission {
  return {
    headers: email.headers.map((h) => ({ key: h.key, value: h.value })),
    subject: email.subject,
    to: email.to ?? [],
    cc: email.cc ?? [],
    replyTo: email.replyTo ?? [],
  };
}

function describe(email: Email): ParsedSubmission {
  return {
    ...describeHeaders(email),
    bodies: {
      html: email.html ?? null,
      text: email.text ?? null,
      attachments: email.attachments.map((a) => ({
        filename: a.filename,
        mimeType: a.mimeType,
        sha256: createHash('sha256')
          .update(new Uint8Array(a.content as ArrayBuffer))
          .digest('hex'),
      })),
    },
  };
}

/** A submission's header fields only (header-fields.ts), in process. */
async function parseHeaders(raw: Buffer): Promise<ParsedSubmission> {
  try {
    return readHeaderFields(raw);
  } catch (err) {
    throw new UnparseableMessage((err as Error).message);
  }
}

/** One worker, started on first need and left idle (unref'd) between large messages. */
export class MessageParser {
  private worker: Worker | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: each entry resolves the promise of the kind its caller asked for.
  private pending = new Map<number, { resolve: (m: any) => void; reject: (err: Error) => void }>();
  private next = 0;

  /** A submitted message, bodies included (src/smtp/submit-message.ts). */
  parse(raw: Buffer): Promise<ParsedSubmission> {
    return this.run(raw, 'submission');
  }

  /**
   * A submitted message for accepting it: a small one's header section only (its bodies are
   * read from the stored message when asked for), a large one whole, in the worker thread,
   * so that reading it back never parses megabytes on the event loop.
   */
  parseForSubmission(raw: Buffer): Promise<ParsedSubmission> {
    return raw.length <= INLINE_MAX_BYTES ? parseHeaders(raw) : this.parse(raw);
  }

  /** Any message as postal-mime's Email (src/inbound/); throws UnparseableMessage when it cannot be parsed. */
  parseEmail(raw: Buffer): Promise<Email> {
    return this.run(raw, 'email');
  }

  private async run<K extends ParseKind>(raw: Buffer, kind: K): Promise<Parsed<K>> {
    if (raw.length <= INLINE_MAX_BYTES) return parseInProcess(raw, kind);
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, raw, kind });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // The build runs parse-worker.js; from source (tests, `npm run dev`) the .ts file, loaded
    // through tsx's API (a devDependency): loader hooks are not inherited by worker threads.
    const worker = import.meta.url.endsWith('.ts')
      ? new Worker(
          `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(new URL('./parse-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true },
        )
      : new Worker(new URL('./parse-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', ({ id, result, error }: { id: number; result?: ParsedSubmission | Email; error?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      if (error !== undefined) waiting?.reject(new UnparseableMessage(error));
      else waiting?.resolve(result!);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the message parser exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

/** The process's parser: SMTP submission and inbound mail share its one worker thread. */
export const messageParser = new MessageParser();
