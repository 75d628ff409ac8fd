// One batch of an import's rows, written in one transaction with a constant number of
// statements (multi-row, through unnest), whatever the batch size:
//
//   hold the lease → insert the new contacts → lock the existing ones (upsert) → join the
//   segments → set the topic choices → update the existing contacts that changed → add the
//   batch to the import's progress
//
// Contacts, memberships and progress commit together, so a worker that takes the import over
// after a crash resumes exactly after the last committed batch: no row is written twice. The
// lease token fences the batch: a worker whose lease was taken over writes nothing.
// As at Resend (resend-compat-notes §7.1), imports record no contact.* events: a million-row
// file must not become a million webhooks.
//
// Rows of one batch have distinct addresses (run-import.ts starts a new batch at a repeat).
// An existing contact is skipped (on_conflict 'skip', the default) or updated ('upsert'):
// given cells replace its values, properties merge, empty cells keep what it has; it is
// counted as updated, and written only if something really changed. Skipped rows touch nothing.
import crypto from 'node:crypto';
import type { Db, Queryable } from '../../db/database.js';
import { CONTACT_COLUMNS, toContact } from '../contact-fields.js';
import type { Contact, TopicChoice } from '../contact-store.js';
import { mergeProperties } from '../property-values.js';
import type { OnConflict } from './import-options.js';
import type { ImportRow, RowError } from './import-row.js';

/** An import as the worker holding it runs it. */
export interface ImportJob {
  id: string;
  accountId: string;
  leaseToken: string;
  leaseMs: number;
  onConflict: OnConflict;
  segmentIds: string[];
  topics: TopicChoice[];
  /** Rows of the file already committed (header excluded): a resumed run starts after them. */
  done: number;
  /** Row errors stored so far (the first MAX_KEPT_ERRORS are kept). */
  errorsKept: number;
}

export interface Batch {
  rows: ImportRow[];
  errors: RowError[];
}

/** The row errors an import keeps for GET /contacts/imports/:id; the rest are only counted. */
const MAX_KEPT_ERRORS = 100;

/** The worker's lease was taken over (it was too slow or thought dead): it must stop. */
export class LeaseLost extends Error {}

const PREFIXED_COLUMNS = CONTACT_COLUMNS.split(', ').map((c) => `c.${c}`).join(', ');

export async function writeBatch(db: Db, job: ImportJob, batch: Batch): Promise<void> {
  const keptErrors = batch.errors.slice(0, Math.max(0, MAX_KEPT_ERRORS - job.errorsKept));
  await db.tx(async (q) => {
    await holdLease(q, job);
    const created = await insertNew(q, job.accountId, batch.rows);
    const createdEmails = new Set(created.map((c) => c.email));
    const others = batch.rows.filter((r) => !createdEmails.has(r.email));
    const existing = job.onConflict === 'upsert' ? await lockExisting(q, job.accountId, others) : [];
    const ids = [...created, ...existing].map((c) => c.id);
    const joined = await joinSegments(q, job, ids);
    const chose = await chooseTopics(q, job, ids);
    await updateExisting(q, job.accountId, existing, batch.rows, new Set([...joined, ...chose]));
    await recordProgress(q, job, {
      total: batch.rows.length + batch.errors.length,
      created: created.length,
      updated: existing.length,
      skipped: others.length - existing.length,
      failed: batch.errors.length,
      errors: keptErrors,
    });
  });
  job.done += batch.rows.length + batch.errors.length;
  job.errorsKept += keptErrors.length;
}

async function holdLease(q: Queryable, job: ImportJob): Promise<void> {
  const row = await q.one(`SELECT 1 FROM contact_imports WHERE id = $1 AND lease_token = $2 AND status = 'in_progress' FOR UPDATE`, [
    job.id,
    job.leaseToken,
  ]);
  if (!row) throw new LeaseLost(`import ${job.id}: lease taken over`);
}

/** Inserts the rows whose address is new to the account; the contacts created. */
async function insertNew(q: Queryable, accountId: string, rows: ImportRow[]): Promise<Contact[]> {
  if (rows.length === 0) return [];
  // In address order, as lockExisting, so two imports into one account lock rows in one order.
  const created = await q.query(
    `INSERT INTO contacts (id, account_id, email, first_name, last_name, unsubscribed, properties)
     SELECT r.id, $1, r.email, r.first_name, r.last_name, COALESCE(r.unsubscribed, false), r.properties
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::jsonb[])
            AS r(id, email, first_name, last_name, unsubscribed, properties)
      ORDER BY r.email
     ON CONFLICT (account_id, email) DO NOTHING
     RETURNING ${CONTACT_COLUMNS}`,
    [
      accountId,
      rows.map(() => crypto.randomUUID()),
      rows.map((r) => r.email),
      rows.map((r) => r.firstName ?? null),
      rows.map((r) => r.lastName ?? null),
      rows.map((r) => r.unsubscribed ?? null),
      rows.map((r) => JSON.stringify(r.properties)),
    ],
  );
  return created.map(toContact);
}

async function lockExisting(q: Queryable, accountId: string, rows: ImportRow[]): Promise<Contact[]> {
  if (rows.length === 0) return [];
  const found = await q.query(
    `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE account_id = $1 AND email = ANY($2::text[]) ORDER BY email FOR UPDATE`,
    [accountId, rows.map((r) => r.email)],
  );
  return found.map(toContact);
}

/** Adds the contacts to the import's segments (one deleted since is left out); the ids that joined one. */
async function joinSegments(q: Queryable, job: ImportJob, contactIds: string[]): Promise<string[]> {
  if (job.segmentIds.length === 0 || contactIds.length === 0) return [];
  const rows = await q.query(
    `INSERT INTO segment_contacts (segment_id, contact_id)
     SELECT s.id, c.id FROM segments s CROSS JOIN unnest($3::uuid[]) AS c(id)
      WHERE s.account_id = $1 AND s.id = ANY($2::uuid[])
     ON CONFLICT DO NOTHING
     RETURNING contact_id`,
    [job.accountId, job.segmentIds, contactIds],
  );
  return rows.map((r) => r.contact_id as string);
}

/** Writes the import's topic choices; the ids whose choice changed. */
async function chooseTopics(q: Queryable, job: ImportJob, contactIds: string[]): Promise<string[]> {
  if (job.topics.length === 0 || contactIds.length === 0) return [];
  const rows = await q.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription)
     SELECT c.id, t.id, ch.subscription
       FROM unnest($2::uuid[], $3::text[]) AS ch(topic_id, subscription)
       JOIN topics t ON t.id = ch.topic_id AND t.account_id = $1
      CROSS JOIN unnest($4::uuid[]) AS c(id)
     ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now()
      WHERE contact_topics.subscription IS DISTINCT FROM EXCLUDED.subscription
     RETURNING contact_id`,
    [job.accountId, job.topics.map((t) => t.topicId), job.topics.map((t) => t.subscription), contactIds],
  );
  return rows.map((r) => r.contact_id as string);
}

/** Applies the rows to the existing contacts; the ones that changed (fields, segments or topics), as updated. */
async function updateExisting(
  q: Queryable,
  accountId: string,
  existing: Contact[],
  rows: ImportRow[],
  joinedOrChose: Set<string>,
): Promise<Contact[]> {
  if (existing.length === 0) return [];
  const rowOf = new Map(rows.map((r) => [r.email, r]));
  const changes = existing
    .map((contact) => ({ contact, next: applyRow(contact, rowOf.get(contact.email)!) }))
    .filter(({ contact, next }) => joinedOrChose.has(contact.id) || !sameFields(contact, next));
  if (changes.length === 0) return [];
  const updated = await q.query(
    `UPDATE contacts c
        SET first_name = u.first_name, last_name = u.last_name, unsubscribed = u.unsubscribed, properties = u.properties, updated_at = now()
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::boolean[], $6::jsonb[]) AS u(id, first_name, last_name, unsubscribed, properties)
      WHERE c.id = u.id AND c.account_id = $1
     RETURNING ${PREFIXED_COLUMNS}`,
    [
      accountId,
      changes.map((c) => c.contact.id),
      changes.map((c) => c.next.firstName),
      changes.map((c) => c.next.lastName),
      changes.map((c) => c.next.unsubscribed),
      changes.map((c) => JSON.stringify(c.next.properties)),
    ],
  );
  return updated.map(toContact);
}

type Fields = Pick<Contact, 'firstName' | 'lastName' | 'unsubscribed' | 'properties'>;

function applyRow(contact: Contact, row: ImportRow): Fields {
  return {
    firstName: row.firstName ?? contact.firstName,
    lastName: row.lastName ?? contact.lastName,
    unsubscribed: row.unsubscribed ?? contact.unsubscribed,
    properties: mergeProperties(contact.properties, row.properties),
  };
}

function sameFields(a: Fields, b: Fields): boolean {
  const sorted = (p: Fields['properties']) => JSON.stringify(Object.entries(p).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.firstName === b.firstName && a.lastName === b.lastName && a.unsubscribed === b.unsubscribed && sorted(a.properties) === sorted(b.properties);
}

async function recordProgress(
  q: Queryable,
  job: ImportJob,
  counts: { total: number; created: number; updated: number; skipped: number; failed: number; errors: RowError[] },
): Promise<void> {
  await q.query(
    `UPDATE contact_imports
        SET total = total + $3, created = created + $4, updated = updated + $5, skipped = skipped + $6, failed = failed + $7,
            errors = errors || $8::jsonb, lease_until = now() + $9 * interval '1 millisecond'
      WHERE id = $1 AND lease_token = $2`,
    [job.id, job.leaseToken, counts.total, counts.created, counts.updated, counts.skipped, counts.failed, JSON.stringify(counts.errors), job.leaseMs],
  );
}
