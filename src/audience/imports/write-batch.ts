// One batch of an import's rows, written in one transaction with a constant number of
// statements (multi-row, through unnest), whatever the batch size:
//
//   hold the lease → insert the new contacts → lock the existing ones (upsert) → join the
//   segments → set the topic choices → update the existing contacts that changed → add the
//   batch to the import's progress
//
// Contacts, memberships and progress commit together, so a worker that takes the import over
// after a crash resumes exactly after the last committed batch: no row is written twice. The
// lease token fences the batch: a worker whose lease was taken over writes nothing. The
// contacts, memberships and topic choices are written by the contact store's bulk writers.
// As at Resend (resend-compat-notes §7.1), imports record no contact.* events: a million-row
// file must not become a million webhooks.
//
// Rows of one batch have distinct addresses (run-import.ts starts a new batch at a repeat).
// An existing contact is skipped (on_conflict 'skip', the default) or updated ('upsert'):
// given cells replace its values, properties merge, empty cells keep what it has; it is
// counted as updated, and written only if something really changed. Skipped rows touch nothing.
import type { Db, Queryable } from '../../db/database.js';
import {
  chooseTopicsQuietly,
  insertContactsQuietly,
  joinSegmentsQuietly,
  lockContactsByEmail,
  overwriteContactsQuietly,
  type Contact,
  type ContactChange,
  type TopicChoice,
} from '../contact-store.js';
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
  /** The row errors stored so far (the first MAX_KEPT_ERRORS are kept). */
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

export async function writeBatch(db: Db, job: ImportJob, batch: Batch): Promise<void> {
  const keptErrors = batch.errors.slice(0, Math.max(0, MAX_KEPT_ERRORS - job.errorsKept));
  await db.tx(async (q) => {
    await holdLease(q, job);
    const created = await insertContactsQuietly(q, job.accountId, batch.rows);
    const createdEmails = new Set(created.map((c) => c.email));
    const others = batch.rows.filter((r) => !createdEmails.has(r.email));
    const existing =
      job.onConflict === 'upsert'
        ? await lockContactsByEmail(
            q,
            job.accountId,
            others.map((r) => r.email),
          )
        : [];
    const ids = [...created, ...existing].map((c) => c.id);
    const joined = await joinSegmentsQuietly(q, job.accountId, job.segmentIds, ids);
    const chose = await chooseTopicsQuietly(q, job.accountId, job.topics, ids);
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
  const row = await q.one(`SELECT 1 FROM contact_imports WHERE id = $1 AND lease_token = $2 AND status = 'in_progress' FOR UPDATE`, [job.id, job.leaseToken]);
  if (!row) throw new LeaseLost(`import ${job.id}: lease taken over`);
}

/** Applies the rows to the existing contacts; the ones that changed (fields, segments or topics), as updated. */
async function updateExisting(q: Queryable, accountId: string, existing: Contact[], rows: ImportRow[], joinedOrChose: Set<string>): Promise<Contact[]> {
  if (existing.length === 0) return [];
  const rowOf = new Map(rows.map((r) => [r.email, r]));
  const changes = existing
    .map((contact) => ({ id: contact.id, contact, fields: applyRow(contact, rowOf.get(contact.email)!) }))
    .filter(({ contact, fields }) => joinedOrChose.has(contact.id) || !sameFields(contact, fields));
  return overwriteContactsQuietly(q, accountId, changes);
}

type Fields = ContactChange['fields'];

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
