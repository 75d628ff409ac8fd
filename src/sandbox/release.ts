// POST /sandbox/messages/:id/release: a captured message sent on to real addresses, as Mailpit's
// release. In a sandbox every delivery ends at the catcher, so a release needs the operator to
// name where released mail goes (POSTLINE_SANDBOX_RELEASE_URL, an SMTP relay, Mailpit's
// manner); without it the route is refused.
//
// A release is an email like any other: the captured message goes through the accept pipeline
// as an SMTP submission's would (its bytes kept, its old DKIM signature dropped, a Message-ID of
// its own, the release's addresses as the envelope, recipients not in To or Cc as Bcc), so it
// gets an id, events and webhooks, and suppressions apply. Its `sandbox_releases` row is written
// in the accepting transaction; the catcher, which the delivery worker still hands it to, finds
// that row and passes the message on to the relay (catcher.ts, release-relay.ts).
import { validation } from '../api/errors.js';
import type { Principal, Route } from '../api/route.js';
import { array, boolean, constant, input, nullable, object, string, uuid } from '../api/schema.js';
import { parseMailbox } from '../addresses/mailbox.js';
import type { Db, Queryable } from '../db/database.js';
import { findCaptured } from './captured-message.js';
import { relayName } from './release-relay.js';

const MAX_RELEASE_RECIPIENTS = 10;

/**
 * The accept pipeline for a message composed already (SMTP submission's path): accepts `raw`
 * for `recipients` as `principal`, runs `alsoCommit` in the accepting transaction, resolves to
 * the email's id. Bound by route-list.ts: sandbox/ is a shared service, and no shared service
 * imports the accept pipeline (emails/) itself.
 */
export type AcceptComposed = (
  principal: Principal,
  message: { raw: Buffer; recipients: string[] },
  alsoCommit: (q: Queryable, emailId: string) => Promise<void>,
) => Promise<string>;

/** The header fields a release drops: the catcher's copy was signed for its own Message-ID, and delivery signs the release anew. */
const DROPPED = /^dkim-signature$/i;

/** `raw` without the DROPPED header fields (each with its continuation lines); the rest byte for byte. */
function withoutOldSignatures(raw: Buffer): Buffer {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = end < 0 ? text : text.slice(0, end + 1);
  const kept: string[] = [];
  let dropping = false;
  for (const line of head.split(/(?<=\n)/)) {
    if (/^[ \t]/.test(line)) {
      if (!dropping) kept.push(line);
      continue;
    }
    dropping = DROPPED.test(line.slice(0, Math.max(0, line.indexOf(':'))).trim());
    if (!dropping) kept.push(line);
  }
  return Buffer.from(kept.join('') + (end < 0 ? '' : text.slice(end + 1)), 'latin1');
}

const RECIPIENT = string({ maxLength: 320 });

/** GET /sandbox: what this sandbox offers beyond capturing, for the dashboard to show or hide. */
export function sandboxSettings(releaseUrl: string | undefined): Route {
  return {
    method: 'GET',
    url: '/sandbox',
    doc: {
      summary: 'The sandbox (POSTLINE_SANDBOX): whether captured mail can be released, and where it goes',
      addition: true,
      response: {
        status: 200,
        schema: object({
          object: constant('sandbox'),
          release: object({
            enabled: boolean({ description: 'Whether POSTLINE_SANDBOX_RELEASE_URL is set: POST /sandbox/messages/:id/release works.' }),
            relay: nullable(string({ description: "The relay's `host:port` (never its credentials); null without one." })),
          }),
        }),
      },
    },
    async handler() {
      return { body: { object: 'sandbox', release: { enabled: !!releaseUrl, relay: releaseUrl ? relayName(releaseUrl) : null } } };
    },
  };
}

export function releaseCapturedMessage(db: Db, releaseUrl: string | undefined, accept: AcceptComposed): Route {
  return {
    method: 'POST',
    url: '/sandbox/messages/:id/release',
    doc: {
      summary: 'Release a captured message to real addresses, through POSTLINE_SANDBOX_RELEASE_URL',
      description:
        "A new email, accepted as an SMTP submission of the captured message would be (its bytes, a new Message-ID and DKIM signature; the addresses given are its envelope, those not in its To or Cc its Bcc): it has an id, events and webhooks like any email, and suppressions apply. Its delivery goes to POSTLINE_SANDBOX_RELEASE_URL, whose answer is the delivery's outcome; nothing else leaves the sandbox. Refused with 403 when POSTLINE_SANDBOX_RELEASE_URL is not set.",
      addition: true,
      params: { id: uuid() },
      body: input(
        {
          to: {
            type: ['string', 'array'],
            items: RECIPIENT,
            maxLength: 320,
            minItems: 1,
            maxItems: MAX_RELEASE_RECIPIENTS,
            description: `Who the message is released to: an address (\`addr\` or \`Name <addr>\`), or a list of up to ${MAX_RELEASE_RECIPIENTS}.`,
          },
        },
        ['to'],
      ),
      response: {
        status: 200,
        schema: object({
          object: constant('sandbox_release'),
          id: uuid('The id of the email the release is (GET /emails/:id).'),
          sandbox_message_id: uuid(),
          to: array(string()),
        }),
      },
    },
    async handler({ principal, params, body }) {
      if (!releaseUrl) {
        throw validation('Releasing captured mail needs POSTLINE_SANDBOX_RELEASE_URL: the SMTP server released mail goes to. Ask the operator to set it.', 403);
      }
      const given = (body as { to: string | string[] }).to;
      const to = [
        ...new Map(
          (Array.isArray(given) ? given : [given]).map((value) => parseMailbox(value, 'to')).map((m) => [m.address.toLowerCase(), m.address]),
        ).values(),
      ];
      const row = await findCaptured(db, principal.accountId, params.id!);
      const emailId = await accept(principal, { raw: withoutOldSignatures(row.raw), recipients: to }, async (q, id) => {
        await q.query(`INSERT INTO sandbox_releases (email_id, account_id, sandbox_message_id, rcpt_to) VALUES ($1, $2, $3, $4)`, [
          id,
          principal.accountId,
          row.id,
          to,
        ]);
      });
      return { body: { object: 'sandbox_release', id: emailId, sandbox_message_id: row.id, to } };
    },
  };
}
