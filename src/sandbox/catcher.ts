// The sandbox's catcher (POSTLINE_SANDBOX): a real SMTP server on loopback that the delivery
// worker relays every message to instead of the recipients' MX hosts, so sandboxed mail goes
// through exactly the production path (composing, DKIM signing, the SMTP transaction, the
// outcome and its events and webhooks) and only the last hop differs. What arrives is stored
// in `sandbox_messages` with its DKIM verdict, checked against the key the domain would
// publish (read from the database: there is no DNS to ask in a sandbox).
//
// Released mail (release.ts: an email of its own, marked in `sandbox_releases`) is the one
// exception: it is not stored but passed on to POSTLINE_SANDBOX_RELEASE_URL (release-relay.ts)
// in the same transaction, and the worker gets the relay's answer.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { dkimVerify, type DNSResolver } from 'mailauth';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { ReleaseRelay, type RelayReply } from './release-relay.js';

/** The reply the worker records as the delivery's last response. */
const CAPTURED_REPLY = '250 2.0.0 Captured by the sandbox: nothing left this machine';

/** One DKIM signature's verdict, as sandbox_messages.dkim holds them. */
export interface DkimResult {
  result: string;
  domain: string | null;
  selector: string | null;
  comment: string | null;
}

interface SentEmailRow {
  id: string;
  account_id: string;
  /** An email made by releasing captured mail (sandbox_releases): for the relay, not the catcher. */
  released: boolean;
}

interface DkimKeyRow {
  dkim_public_key: string;
}

export class SandboxCatcher {
  private server: SMTPServer;
  private listening: Promise<string> | undefined;
  /** POSTLINE_SANDBOX_RELEASE_URL; undefined: released mail waits (451) for a node that has it. */
  private relay: ReleaseRelay | undefined;

  constructor(
    private db: Db,
    private logger: Logger,
    releaseUrl?: string,
  ) {
    this.relay = releaseUrl ? new ReleaseRelay(releaseUrl) : undefined;
    this.server = new SMTPServer({
      name: 'sandbox.postline',
      banner: 'Postline sandbox catcher',
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      hideSTARTTLS: true,
      logger: false,
      size: 0,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          const to = session.envelope.rcptTo.map((r) => r.address);
          this.take(Buffer.concat(chunks), from, to).then(
            (reply) => (reply.code < 400 ? callback(null, reply.message) : callback(Object.assign(new Error(reply.message), { responseCode: reply.code }))),
            (err) => {
              this.logger.error({ err }, 'sandbox: storing a captured message failed');
              callback(Object.assign(new Error('4.3.0 The sandbox could not store the message'), { responseCode: 451 }));
            },
          );
        });
      },
    });
    this.server.on('error', (err) => this.logger.warn({ err }, 'sandbox catcher'));
  }

  /** Starts listening on a free loopback port; resolves to the relay URL to send to. */
  start(): Promise<string> {
    this.listening ??= new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        const { port } = this.server.server.address() as AddressInfo;
        resolve(`smtp://127.0.0.1:${port}`);
      });
    });
    return this.listening;
  }

  stop(): Promise<void> {
    this.relay?.close();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Captures the message, or passes a released email's on to the relay: the reply for the worker. */
  private async take(raw: Buffer, from: string, to: string[]): Promise<RelayReply> {
    // Postline's Message-ID is `<email id@domain>` (emails/accept.ts): the email is found by its
    // primary key, and the whole Message-ID must match, so a client's own id links to nothing.
    const messageId = /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(raw.subarray(0, 64 * 1024).toString('latin1'))?.[1];
    const emailId = messageId && /^<([0-9a-f-]{36})@/i.exec(messageId)?.[1];
    const [email] = emailId
      ? await this.db.query<SentEmailRow>(
          `SELECT e.id, e.account_id, EXISTS (SELECT 1 FROM sandbox_releases r WHERE r.email_id = e.id) AS released
           FROM emails e WHERE e.id = $1 AND e.message_id = $2`,
          [emailId, messageId],
        )
      : [];
    if (email?.released) {
      if (!this.relay)
        return { code: 451, message: '4.3.5 POSTLINE_SANDBOX_RELEASE_URL is not set on this node: the released email waits for one that has it' };
      return this.relay.send(raw, from, to);
    }
    await this.store(raw, from, to, email);
    return { code: 250, message: CAPTURED_REPLY.slice(4) };
  }

  private async store(raw: Buffer, from: string, to: string[], email: SentEmailRow | undefined): Promise<void> {
    const [dkim, parsed] = await Promise.all([this.verifyDkim(raw), PostalMime.parse(raw).catch(() => undefined)]);
    const fromHeader = parsed?.from ? (parsed.from.name ? `${parsed.from.name} <${parsed.from.address}>` : (parsed.from.address ?? '')) : '';
    await this.db.query(
      `INSERT INTO sandbox_messages (id, account_id, email_id, mail_from, rcpt_to, subject, from_header, raw, dkim)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [crypto.randomUUID(), email?.account_id ?? null, email?.id ?? null, from, to, parsed?.subject ?? '', fromHeader, raw, JSON.stringify(dkim)],
    );
  }

  /** mailauth's verifier, answered from the DKIM keys Postline holds for its domains. */
  private async verifyDkim(raw: Buffer): Promise<DkimResult[]> {
    const resolver: DNSResolver = async (name, type) => {
      const match = /^([^.]+)\._domainkey\.(.+)$/i.exec(name);
      if (type !== 'TXT' || !match) throw Object.assign(new Error(`${type} ${name}: no records`), { code: 'ENODATA' });
      const [row] = await this.db.query<DkimKeyRow>(`SELECT dkim_public_key FROM domains WHERE name = $1 AND dkim_selector = $2 AND NOT placeholder`, [
        match[2]!.toLowerCase(),
        match[1],
      ]);
      if (!row) throw Object.assign(new Error(`${name}: no such key`), { code: 'ENOTFOUND' });
      return [[`v=DKIM1; k=rsa; p=${row.dkim_public_key}`]];
    };
    try {
      const verdict = await dkimVerify(raw, { resolver });
      return (verdict.results ?? []).map((r) => ({
        result: r.status.result,
        domain: r.signingDomain ?? null,
        selector: r.selector ?? null,
        comment: r.status.comment ?? null,
      }));
    } catch (err) {
      return [{ result: 'temperror', domain: null, selector: null, comment: (err as Error).message }];
    }
  }
}
