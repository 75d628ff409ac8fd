// POSTLINE_SANDBOX_RELEASE_URL: the one way mail leaves a sandbox, as Mailpit's relay. The
// catcher (catcher.ts) hands it the messages of released emails (release.ts) inside the SMTP
// transaction the delivery worker opened, and answers the worker with what the relay said: its
// 250 is the email's `delivered`, its 5xx a bounce, and a relay that cannot be reached (or a
// 4xx) a temporary failure the worker retries on its schedule, as towards any MX host.
import nodemailer from 'nodemailer';

/** What the catcher answers the delivery worker with: a code of the SMTP reply and its text. */
export interface RelayReply {
  code: number;
  message: string;
}

const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/** `host:port` of a relay URL, for replies and the dashboard: never its credentials. */
export function relayName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'smtps:' ? 465 : 587)}`;
}

/** One line, short enough for an SMTP reply and the delivery's last response. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 400);

export class ReleaseRelay {
  readonly name: string;
  private transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(url: string) {
    this.name = relayName(url);
    // A connection per message (no pool): released mail is a person's click, not a stream. TLS
    // as the URL says (smtps), else STARTTLS when offered, the certificate checked either way.
    this.transport = nodemailer.createTransport({ url, logger: false, ...TIMEOUTS });
  }

  /** Sends `raw` as it is to `to`, from `from` (the envelope the worker gave the catcher). */
  async send(raw: Buffer, from: string, to: string[]): Promise<RelayReply> {
    try {
      const info = await this.transport.sendMail({ envelope: { from: from || false, to }, raw });
      const refused = (info.rejected ?? []).map(String);
      // Some recipients accepted: the message left for them, so the transaction counts as done (a
      // retry would send it to them twice); the relay's refusals stay in the reply text.
      const note = refused.length ? `; refused by the relay: ${refused.join(', ')}` : '';
      return { code: 250, message: `2.0.0 Released through ${this.name}: ${oneLine(String(info.response ?? ''))}${note}` };
    } catch (err) {
      const { responseCode, response, message } = err as { responseCode?: number; response?: string; message: string };
      if (responseCode && responseCode >= 500)
        return { code: responseCode, message: `5.0.0 Refused by the release relay ${this.name}: ${oneLine(response ?? message)}` };
      // 4xx, or no answer at all (refused connection, time-out, TLS): try again later.
      return { code: 451, message: `4.4.1 The release relay ${this.name} did not take the message: ${oneLine(response ?? message)}` };
    }
  }

  close(): void {
    this.transport.close();
  }
}
