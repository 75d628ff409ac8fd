// DATA: read the message (at most 40 MB, within the data deadline), then an authenticated
// session submits it (submit-message.ts) and an unauthenticated one hands it to inbound mail.
// Messages are held in memory while received and accepted; all sessions together may hold at
// most POSTLINE_SMTP_MEMORY_MB, beyond which a message is answered 452 (retry later) rather
// than let a few hundred 40 MB messages exhaust the process.
// The reply comes only once the message is committed: 250, or the refusal, or a 4xx that
// makes the client retry. A client that goes away before the final dot leaves nothing behind:
// the message is only acted on once it was received whole.
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { InboundEnvelope } from '../inbound/inbound.js';
import { MAX_EMAIL_BYTES } from '../api/limits.js';
import { ACCEPTED, REPLIES, replyFor, SmtpReply } from './replies.js';
import { principalOf, recipientsOf, senderOf } from './session.js';
import { submitMessage, type SubmitDeps } from './submit-message.js';
import { logSubmission } from './submission-log.js';

export interface InboundReceiver {
  receive(raw: Buffer, envelope: InboundEnvelope): Promise<void>;
}

/** Bytes of messages held by all sessions (being received or accepted), and the most allowed. */
export class MessageMemory {
  used = 0;
  constructor(readonly limit: number) {}
}

export interface DataDeps extends SubmitDeps {
  inbound: InboundReceiver;
  memory: MessageMemory;
  dataTimeoutMs: number;
  /** Ends the session with `reply` (the data deadline): server.ts finds its connection. */
  closeSession(sessionId: string, reply: SmtpReply): void;
  /** Messages being read or accepted, awaited on shutdown so none is cut off at the database. */
  inFlight: Set<Promise<unknown>>;
}

class Disconnected extends Error {}

export function onData(deps: DataDeps) {
  return (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void): void => {
    const read = readMessage(stream, session, deps).catch((err) => {
      // Refused while reading (too big, no memory): a submission is logged like any refusal.
      if (err instanceof SmtpReply)
        logSubmission(deps, session, err.responseCode, { to: recipientsOf(session), size: stream.byteLength }, { message: err.line });
      throw err;
    });
    const work = read.then(({ raw, release }) =>
      (principalOf(session) ? submitMessage(deps, session, raw) : receiveMessage(deps, session, raw)).finally(release),
    );
    const settled = work.then(
      (text) => callback(null, text),
      (err) => callback(err instanceof SmtpReply || err instanceof Disconnected ? err : replyFor(err)), // Disconnected: nobody left to read it
    );
    deps.inFlight.add(settled);
    void settled.finally(() => deps.inFlight.delete(settled));
  };
}

const TOO_BIG = REPLIES.messageTooBig();

/**
 * The whole message (and `release`, to call once it is no longer held), or, once the message
 * was read to its end, TOO_BIG or BUSY; or Disconnected.
 */
function readMessage(stream: SMTPServerDataStream, session: SMTPServerSession, deps: DataDeps): Promise<{ raw: Buffer; release: () => void }> {
  const { memory } = deps;
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let refusal: SmtpReply | undefined;
    const release = () => {
      memory.used -= held;
      held = 0;
    };
    const refuse = (reply: SmtpReply) => {
      refusal = reply;
      chunks = [];
      release();
    };
    const deadline = setTimeout(() => deps.closeSession(session.id, REPLIES.dataTimeout()), deps.dataTimeoutMs);
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // A refused message is read to its end and dropped: the reply waits for the final dot.
      if (refusal) return;
      if (size > MAX_EMAIL_BYTES || stream.sizeExceeded) return refuse(TOO_BIG);
      if (memory.used + chunk.length > memory.limit) return refuse(REPLIES.busy());
      memory.used += chunk.length;
      held += chunk.length;
      chunks.push(chunk);
    });
    stream.once('end', () => {
      clearTimeout(deadline);
      if (stream.sizeExceeded && !refusal) refuse(TOO_BIG);
      if (refusal) reject(refusal);
      else resolve({ raw: Buffer.concat(chunks, size), release });
    });
    // smtp-server destroys the stream (with an error when one is listened for) if the client
    // disconnects before the final dot.
    const gone = () => {
      clearTimeout(deadline);
      release();
      reject(new Disconnected('the client went away during DATA'));
    };
    stream.once('error', gone);
    stream.once('close', () => {
      if (!stream.readableEnded) gone();
    });
  });
}

async function receiveMessage(deps: DataDeps, session: SMTPServerSession, raw: Buffer): Promise<string> {
  const envelope: InboundEnvelope = {
    mailFrom: senderOf(session),
    rcptTo: recipientsOf(session),
    remoteAddress: session.remoteAddress,
    clientHostname: session.clientHostname,
    heloName: session.hostNameAppearsAs || '',
    secure: session.secure,
  };
  try {
    await deps.inbound.receive(raw, envelope);
    return ACCEPTED.received();
  } catch (err) {
    // Inbound refuses for good with a 5xx responseCode (no recipient is ours any more).
    const code = (err as { responseCode?: unknown }).responseCode;
    if (typeof code === 'number' && code >= 500 && code < 600) throw new SmtpReply(code, '5.1.1', (err as Error).message);
    deps.logger.warn({ err, remoteAddress: session.remoteAddress }, 'SMTP: inbound message not stored');
    throw REPLIES.temporaryFailure();
  }
}
