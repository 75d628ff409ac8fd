// One chunk of a broadcast's fan-out: the next contacts of its segment (by contact id, after
// the cursor), each rendered with its merge variables and unsubscribe link, accepted through
// the one accept pipeline (src/emails/accept.ts, source 'broadcast'), and the cursor moved past
// them in the SAME transaction as their emails (Submission.beforeCommit). So a chunk is either
// wholly sent or not at all: a node that stops or dies half-way leaves the cursor at the last
// committed chunk, and whoever resumes starts right after it. The cursor update is also the
// fence: it names the cursor the chunk started from, so a second worker that computed the same
// chunk (a lease that ran out under a slow node) finds it moved and rolls back; the unique
// index on emails (broadcast_id, contact_id) would refuse the duplicates anyway.
//
// Who is sent to (walked in the segment's primary-key order, so each chunk is an index range):
// members of the segment that are not unsubscribed and, for a broadcast with a topic, are
// subscribed to it (broadcast-audience.ts, shared with GET /broadcasts/:id/recipients-count).
// Addresses on the suppression list are left to the accept pipeline, which records them as
// `suppressed` (recipients?type=suppressed) and never attempts them.
//
// Coupled with 0012_audience.sql (read only here: segment_contacts, contacts, contact_topics,
// topics) and 0014_broadcasts.sql (broadcasts.cursor, emails.broadcast_id/contact_id).
import { ApiError } from '../api/errors.js';
import type { Contact } from '../audience/contact-store.js';
import { type ContactRow, toContact } from '../audience/contact-fields.js';
import { contactVariables } from '../audience/contact-store.js';
import { listUnsubscribeHeaders, unsubscribeUrl, type UnsubscribeLinks } from '../audience/unsubscribe-links.js';
import type { Db, Queryable } from '../db/database.js';
import { acceptEmails, type AcceptDeps } from '../emails/accept.js';
import { parseEmailRequest, type EmailRequest } from '../emails/email-request.js';
import type { GroupCommitter } from '../emails/group-commit.js';
import type { Logger } from '../logger.js';
import { NOT_UNSUBSCRIBED, segmentMembers, subscribedToTopic } from './broadcast-audience.js';
import type { BroadcastRow } from './broadcast-view.js';
import { contentRenderer, UNSUBSCRIBE_TAGS, type BroadcastContent } from './merge-tags.js';

/** A broadcast as the fan-out holds it while it owns the lease. */
export interface SendingBroadcast {
  id: string;
  accountId: string;
  segmentId: string | null;
  topicId: string | null;
  from: string;
  replyTo: string[] | null;
  content: BroadcastContent;
  /** The last contact id whose email is committed; null before the first chunk. */
  cursor: string | null;
}

export interface FanOutDeps {
  db: Db;
  accept: AcceptDeps;
  links: () => Promise<UnsubscribeLinks>;
  chunkSize: number;
  /** How long each committed chunk extends the lease. */
  leaseMs: number;
  logger: Logger;
}

/** The chunk's transaction found the broadcast moved on: canceled, or advanced by another worker. */
export class BroadcastLost extends Error {}

type ChunkResult = 'more' | 'done';

export function sendingBroadcast(row: BroadcastRow): SendingBroadcast {
  return {
    id: row.id,
    accountId: row.account_id,
    segmentId: row.segment_id,
    topicId: row.topic_id,
    // from_address and subject are nullable columns, but every broadcast has both (start-sending.ts).
    from: row.from_address!,
    replyTo: row.reply_to,
    content: { subject: row.subject!, html: row.html, text: row.text, previewText: row.preview_text },
    cursor: row.cursor,
  };
}

/** A chunk ready to be accepted: its contacts' emails, rendered and validated. */
interface PreparedChunk {
  /** The cursor the chunk starts after (the previous chunk's last contact). */
  from: string | null;
  /** Its last contact: the cursor once it is committed. */
  last: string;
  contacts: number;
  requests: EmailRequest[];
  preparedMs: number;
}

/** The contacts after `from` and their emails; undefined when the segment is walked to its end. */
export async function prepareChunk(deps: FanOutDeps, broadcast: SendingBroadcast, from: string | null): Promise<PreparedChunk | undefined> {
  const started = performance.now();
  const contacts = await nextContacts(deps.db, broadcast, from, deps.chunkSize);
  if (contacts.length === 0) return undefined;
  const requests = await renderRequests(deps, broadcast, contacts);
  return { from, last: contacts[contacts.length - 1]!.id, contacts: contacts.length, requests, preparedMs: performance.now() - started };
}

/**
 * Accepts a prepared chunk. With `previous` (the chunk before it, still being accepted), its
 * emails are checked at once but committed only after that one committed: chunks overlap
 * their round trips and still commit in cursor order. If `previous` fails, this one commits
 * nothing. Throws BroadcastLost.
 */
export async function acceptChunk(deps: FanOutDeps, broadcast: SendingBroadcast, chunk: PreparedChunk, previous?: Promise<unknown>): Promise<void> {
  const started = performance.now();
  await acceptEmails(previous ? committingAfter(previous, deps.accept) : deps.accept, {
    principal: { accountId: broadcast.accountId, domainId: null },
    source: 'broadcast',
    payloads: chunk.requests,
    validate: (request) => request as EmailRequest,
    // Strict: what can fail now is common to the whole chunk (the sender domain no longer
    // verified): the chunk is retried later rather than the broadcast skipping everyone.
    mode: 'strict',
    // Queued as rows only: each email is composed and signed by the delivery worker that takes
    // it, so a segment is queued at the speed of inserting rows and its CPU is spread over
    // every worker node.
    composeAt: 'delivery',
    beforeCommit: (q, result) => advance(q, broadcast.id, chunk.from, chunk.last, result.ids.length, deps.leaseMs),
  }).catch((err) => {
    // Another worker committed these contacts' emails first (emails_broadcast_contact).
    if (err?.code === '23505' && err?.constraint === 'emails_broadcast_contact')
      throw new BroadcastLost(`broadcast ${broadcast.id} was moved on by another worker`);
    throw err;
  });
  broadcast.cursor = chunk.last;
  if (deps.logger.isLevelEnabled('debug')) {
    const { contacts, requests, preparedMs } = chunk;
    const acceptMs = Math.round(performance.now() - started);
    deps.logger.debug(
      { broadcast: broadcast.id, contacts, emails: requests.length, preparedMs: Math.round(preparedMs), acceptMs },
      'broadcast chunk committed',
    );
  }
}

/** The accept pipeline's dependencies with a committer that first waits for `previous`. */
function committingAfter(previous: Promise<unknown>, accept: AcceptDeps): AcceptDeps {
  const { committer } = accept;
  const inOrder: Pick<GroupCommitter, 'commit'> = {
    async commit(emails, beforeCommit) {
      await previous;
      return committer.commit(emails, beforeCommit);
    },
  };
  return { ...accept, committer: inOrder as GroupCommitter };
}

/** One chunk after the broadcast's committed cursor, start to end; 'done' (and `sent`) at the end of the segment. */
export async function fanOutChunk(deps: FanOutDeps, broadcast: SendingBroadcast): Promise<ChunkResult> {
  const chunk = await prepareChunk(deps, broadcast, broadcast.cursor);
  if (!chunk) {
    await markSent(deps.db, broadcast);
    return 'done';
  }
  await acceptChunk(deps, broadcast, chunk);
  return 'more';
}

const CONTACT_COLUMNS = 'c.id, c.account_id, c.email, c.first_name, c.last_name, c.unsubscribed, c.properties, c.created_at, c.updated_at';

/** The placeholders of nextContacts' query. */
const AUDIENCE = { segment: '$1', account: '$2', topic: '$4' };

async function nextContacts(db: Db, b: SendingBroadcast, from: string | null, limit: number): Promise<Contact[]> {
  if (!b.segmentId) return [];
  const rows = await db.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS}
       FROM ${segmentMembers(AUDIENCE)} AND ($3::uuid IS NULL OR sc.contact_id > $3::uuid)
        AND ${NOT_UNSUBSCRIBED}
        AND ${subscribedToTopic(AUDIENCE)}
      ORDER BY sc.contact_id
      LIMIT $5`,
    [b.segmentId, b.accountId, from, b.topicId, limit],
  );
  return rows.map(toContact);
}

/**
 * Each contact's email, validated like any API email. A contact whose email cannot be valid
 * (say, a name that renders a line break into the subject) is skipped and logged, never
 * allowed to stop the chunk: the cursor still moves past it.
 */
async function renderRequests(deps: FanOutDeps, b: SendingBroadcast, contacts: Contact[]): Promise<EmailRequest[]> {
  const links = await deps.links();
  const render = contentRenderer(b.content);
  const reads = onceEach(deps.db); // the account's property definitions, read once per chunk
  const requests: EmailRequest[] = [];
  for (const contact of contacts) {
    const url = unsubscribeUrl(links, contact.id, b.id);
    const values: Record<string, string | number> = await contactVariables(reads, b.accountId, contact);
    for (const tag of UNSUBSCRIBE_TAGS) values[tag] = url;
    const content = render(values);
    try {
      const request = parseEmailRequest({
        from: b.from,
        to: [contact.email],
        subject: content.subject,
        html: content.html ?? undefined,
        text: content.text ?? undefined,
        reply_to: b.replyTo ?? undefined,
        headers: listUnsubscribeHeaders(url),
      });
      requests.push({ ...request, broadcast: { id: b.id, contactId: contact.id } });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      deps.logger.warn({ broadcast: b.id, contact: contact.id, err: err.message }, 'broadcast: contact skipped');
    }
  }
  return requests;
}

/** A read-only Queryable that runs each distinct query once and shares its result. */
function onceEach(q: Queryable): Queryable {
  const results = new Map<string, Promise<object[]>>();
  const query = <R extends object = never>(sql: string, params?: unknown[]) => {
    const key = JSON.stringify([sql, params ?? []]);
    let result = results.get(key);
    if (!result) results.set(key, (result = q.query<R>(sql, params)));
    return result as Promise<R[]>;
  };
  return { query, one: async (sql, params) => (await query(sql, params))[0] as never };
}

/** In the chunk's transaction: the cursor from `from` past its contacts, and the lease extended. */
async function advance(q: Queryable, id: string, from: string | null, to: string, accepted: number, leaseMs: number): Promise<void> {
  const moved = await q.one(
    `UPDATE broadcasts
        SET cursor = $3, recipients = recipients + $4, lease_until = now() + $5 * interval '1 millisecond', updated_at = now()
      WHERE id = $1 AND status = 'sending' AND cursor IS NOT DISTINCT FROM $2::uuid
      RETURNING id`,
    [id, from, to, accepted, leaseMs],
  );
  if (!moved) throw new BroadcastLost(`broadcast ${id} was canceled or moved on by another worker`);
}

/** The end of the segment: `sent`, if the broadcast is still where this worker committed it. */
export async function markSent(db: Db, b: SendingBroadcast): Promise<void> {
  const done = await db.one(
    `UPDATE broadcasts SET status = 'sent', lease_until = NULL, updated_at = now()
      WHERE id = $1 AND status = 'sending' AND cursor IS NOT DISTINCT FROM $2::uuid
      RETURNING id`,
    [b.id, b.cursor],
  );
  if (!done) throw new BroadcastLost(`broadcast ${b.id} was canceled or moved on by another worker`);
}
