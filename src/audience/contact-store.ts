// The contact store: the one place that writes contacts, their segment memberships and
// topic choices, and records contact.* events in the caller's transaction. Other concepts
// (broadcasts, automations, custom events, the unsubscribe page) code against these exports,
// so change their signatures only together with those callers.
//
// A duplicate address on create is not an error: as on Resend (resend-node issue #494,
// "contacts.create returns a normal success response if a contact exists"), creating an
// address that already exists answers with the existing contact. Its fields and topic
// choices stay as they were (a create must not silently overwrite a name or re-subscribe
// someone: use updateContact / PATCH), but it joins the segments the request names, since
// that only adds and is what a signup form posting to a list means; contact.updated is
// recorded when it joined one, no event otherwise.
import crypto from 'node:crypto';
import { ApiError, notFound, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import {
  CONTACT_COLUMNS,
  contactEventData,
  contactKey,
  type ContactRow,
  parseContactEmail,
  parseName,
  parsePropertiesShape,
  parseUnsubscribed,
  toContact,
} from './contact-fields.js';
import { checkPropertyValues, mergeProperties, propertyDefinitions, type PropertyDefinition } from './property-values.js';

export type PropertyValue = string | number | null;

export interface Contact {
  id: string;
  accountId: string;
  /** lower-cased bare address */
  email: string;
  firstName: string | null;
  lastName: string | null;
  unsubscribed: boolean;
  properties: Record<string, PropertyValue>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactFields {
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  unsubscribed?: boolean;
  properties?: Record<string, PropertyValue>;
}

export type Subscription = 'opt_in' | 'opt_out';
export interface TopicChoice {
  topicId: string;
  subscription: Subscription;
}

/** By uuid or by address (case-insensitive). undefined when not this account's. */
export async function findContact(q: Queryable, accountId: string, idOrEmail: string): Promise<Contact | undefined> {
  return lockContact(q, accountId, idOrEmail, false);
}

/**
 * Inserts and records contact.created in q's transaction. Validates fields (ApiError on bad
 * input, including properties not defined in /contact-properties or of the wrong type).
 * An address that already exists returns that contact unchanged, with no event (see above).
 */
export async function createContact(q: Queryable, accountId: string, fields: ContactFields): Promise<Contact> {
  return (await insertContact(q, accountId, fields)).contact;
}

/**
 * createContact, telling whether it created; with `segmentIds` and `topics` (POST /contacts)
 * joined before contact.created is recorded, so the event carries them. An existing address
 * keeps its fields and topics and only joins `segmentIds` (see the top of this file).
 */
export async function insertContact(
  q: Queryable,
  accountId: string,
  fields: ContactFields,
  extras: { segmentIds?: string[]; topics?: TopicChoice[] } = {},
): Promise<{ contact: Contact; created: boolean }> {
  const email = parseContactEmail(fields.email);
  const firstName = parseName(fields.firstName, 'first_name') ?? null;
  const lastName = parseName(fields.lastName, 'last_name') ?? null;
  const unsubscribed = parseUnsubscribed(fields.unsubscribed) ?? false;
  const properties = mergeProperties({}, parsePropertiesShape(fields.properties) ?? {});
  await checkPropertyValues(q, accountId, properties);
  const segmentIds = [...new Set(extras.segmentIds ?? [])];
  await assertOwned(q, accountId, 'segments', segmentIds, 'Segment');
  await checkTopicChoices(q, accountId, extras.topics ?? []);

  const row = await q.one<ContactRow>(
    `INSERT INTO contacts (id, account_id, email, first_name, last_name, unsubscribed, properties)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (account_id, email) DO NOTHING
     RETURNING ${CONTACT_COLUMNS}`,
    [crypto.randomUUID(), accountId, email, firstName, lastName, unsubscribed, JSON.stringify(properties)],
  );
  if (!row) return { contact: await joinExisting(q, accountId, email, segmentIds), created: false };
  const contact = toContact(row);
  for (const segmentId of segmentIds) await joinSegment(q, contact.id, segmentId);
  await recordContactEvent(q, 'contact.created', contact);
  await writeTopicChoices(q, contact, extras.topics ?? []);
  return { contact, created: true };
}

/** A create that found `email` taken: the existing contact, joined to `segmentIds`. */
async function joinExisting(q: Queryable, accountId: string, email: string, segmentIds: string[]): Promise<Contact> {
  const existing = await lockContact(q, accountId, email, true);
  if (!existing) throw new ApiError('application_error', 'The contact could not be created; try again.');
  let joined = false;
  for (const segmentId of segmentIds) joined = (await joinSegment(q, existing.id, segmentId)) || joined;
  if (!joined) return existing;
  return touchContact(q, existing.id);
}

/** For POST /events/send and automations: the contact of this address, created (contact.created) if missing. */
export async function findOrCreateContact(q: Queryable, accountId: string, email: string): Promise<{ contact: Contact; created: boolean }> {
  const existing = await findContact(q, accountId, parseContactEmail(email));
  if (existing) return { contact: existing, created: false };
  return insertContact(q, accountId, { email });
}

/**
 * Applies changes, records contact.updated (an unsubscribe included). undefined when not
 * found. `contactId` may also be the address. Properties merge: given keys change, null
 * clears one, others stay.
 */
export async function updateContact(q: Queryable, accountId: string, contactId: string, changes: Partial<ContactFields>): Promise<Contact | undefined> {
  const current = await lockContact(q, accountId, contactId, true);
  if (!current) return undefined;
  const email = changes.email === undefined ? current.email : parseContactEmail(changes.email);
  const firstName = parseName(changes.firstName, 'first_name');
  const lastName = parseName(changes.lastName, 'last_name');
  const unsubscribed = parseUnsubscribed(changes.unsubscribed);
  const propertyChanges = parsePropertiesShape(changes.properties) ?? {};
  await checkPropertyValues(q, accountId, propertyChanges);
  if (email !== current.email) await assertAddressFree(q, accountId, email);

  const next = {
    email,
    firstName: firstName === undefined ? current.firstName : firstName,
    lastName: lastName === undefined ? current.lastName : lastName,
    unsubscribed: unsubscribed ?? current.unsubscribed,
    properties: mergeProperties(current.properties, propertyChanges),
  };
  // A PATCH that changes nothing is answered without an event, so webhooks report changes only.
  if (sameFields(current, next)) return current;
  const row = await q.one<ContactRow>(
    `UPDATE contacts SET email = $3, first_name = $4, last_name = $5, unsubscribed = $6, properties = $7, updated_at = now()
      WHERE id = $1 AND account_id = $2 RETURNING ${CONTACT_COLUMNS}`,
    [current.id, accountId, next.email, next.firstName, next.lastName, next.unsubscribed, JSON.stringify(next.properties)],
  );
  const contact = toContact(row!);
  await recordContactEvent(q, 'contact.updated', contact);
  return contact;
}

/** Deletes, records contact.deleted. false when not found. `contactId` may also be the address. */
export async function deleteContact(q: Queryable, accountId: string, contactId: string): Promise<boolean> {
  const contact = await lockContact(q, accountId, contactId, true);
  if (!contact) return false;
  const segmentIds = await segmentIdsOf(q, contact.id);
  await q.query('DELETE FROM contacts WHERE id = $1 AND account_id = $2', [contact.id, accountId]);
  await recordEvents(q, [{ accountId, type: 'contact.deleted', data: contactEventData(contact, segmentIds) }]);
  return true;
}

/** Idempotent. ApiError not_found (404) when the segment is not this account's. */
export async function addContactToSegment(q: Queryable, accountId: string, contactId: string, segmentId: string): Promise<void> {
  await assertOwned(q, accountId, 'contacts', [contactId], 'Contact');
  await assertOwned(q, accountId, 'segments', [segmentId], 'Segment');
  await joinSegment(q, contactId, segmentId);
}

/** Adds the membership; true when it was not there before. The caller checked both ids are the account's. */
export async function joinSegment(q: Queryable, contactId: string, segmentId: string): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO segment_contacts (segment_id, contact_id) VALUES ($1, $2)
     ON CONFLICT DO NOTHING RETURNING segment_id`,
    [segmentId, contactId],
  );
  return rows.length > 0;
}

/** Removes the membership; true when it was there. */
export async function leaveSegment(q: Queryable, contactId: string, segmentId: string): Promise<boolean> {
  const rows = await q.query('DELETE FROM segment_contacts WHERE segment_id = $1 AND contact_id = $2 RETURNING segment_id', [segmentId, contactId]);
  return rows.length > 0;
}

/** Explicit per-topic choices; ApiError 404 for a topic not this account's. Records contact.updated. */
export async function setTopicSubscriptions(q: Queryable, accountId: string, contactId: string, choices: TopicChoice[]): Promise<void> {
  const contact = await lockContact(q, accountId, contactId, true);
  if (!contact) throw notFound('Contact');
  await checkTopicChoices(q, accountId, choices);
  await writeTopicChoices(q, contact, choices);
  await touchContact(q, contact.id);
}

/** Marks a contact changed by something beside its own columns (segments, topics) and records contact.updated. */
export async function touchContact(q: Queryable, contactId: string): Promise<Contact> {
  const row = await q.one<ContactRow>(`UPDATE contacts SET updated_at = now() WHERE id = $1 RETURNING ${CONTACT_COLUMNS}`, [contactId]);
  const contact = toContact(row!);
  await recordContactEvent(q, 'contact.updated', contact);
  return contact;
}

/**
 * Merge variables of a contact for {{{VAR}}} rendering: FIRST_NAME, LAST_NAME, EMAIL (only
 * when non-null) and each defined contact property key → the contact's value, else the
 * property's fallback_value (absent when neither).
 */
export async function contactVariables(q: Queryable, accountId: string, contact: Contact): Promise<Record<string, string | number>> {
  return contactVariablesWith(await propertyDefinitions(q, accountId), contact);
}

/**
 * contactVariables with the account's definitions loaded once (`propertyDefinitions(q,
 * accountId)` from ./property-values.js), for callers rendering many contacts in a chunk.
 */
function contactVariablesWith(definitions: Map<string, PropertyDefinition>, contact: Contact): Record<string, string | number> {
  const variables: Record<string, string | number> = {};
  for (const definition of definitions.values()) {
    const value = contact.properties[definition.key] ?? definition.fallbackValue;
    if (value !== null && value !== undefined) variables[definition.key] = value;
  }
  if (contact.firstName !== null) variables.FIRST_NAME = contact.firstName;
  if (contact.lastName !== null) variables.LAST_NAME = contact.lastName;
  variables.EMAIL = contact.email;
  return variables;
}

interface SegmentIdRow {
  segment_id: string;
}

/** The ids of the segments a contact is in, oldest membership first. */
async function segmentIdsOf(q: Queryable, contactId: string): Promise<string[]> {
  const rows = await q.query<SegmentIdRow>('SELECT segment_id FROM segment_contacts WHERE contact_id = $1 ORDER BY created_at, segment_id', [contactId]);
  return rows.map((r) => r.segment_id);
}

/** Records a contact.* event with the contact's current segments, in q's transaction. */
async function recordContactEvent(q: Queryable, type: 'contact.created' | 'contact.updated', contact: Contact): Promise<void> {
  const segmentIds = await segmentIdsOf(q, contact.id);
  await recordEvents(q, [{ accountId: contact.accountId, type, data: contactEventData(contact, segmentIds) }]);
}

/** ApiError 404 "<What> not found" unless every id is a row of `table` in this account. */
export async function assertOwned(q: Queryable, accountId: string, table: 'segments' | 'topics' | 'contacts', ids: string[], what: string): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return;
  if (!unique.every((id) => isUuid(id))) throw notFound(what);
  const rows = await q.query(`SELECT id FROM ${table} WHERE account_id = $1 AND id = ANY($2::uuid[])`, [accountId, unique]);
  if (rows.length !== unique.length) throw notFound(what);
}

async function lockContact(q: Queryable, accountId: string, idOrEmail: string, forUpdate: boolean): Promise<Contact | undefined> {
  const key = contactKey(idOrEmail);
  if (!key) return undefined;
  const row = await q.one<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE account_id = $1 AND ${key.column} = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    accountId,
    key.value,
  ]);
  return row ? toContact(row) : undefined;
}

/** Each choice is opt_in | opt_out (callers are typed, requests are not) and of a topic of this account. */
async function checkTopicChoices(q: Queryable, accountId: string, choices: TopicChoice[]): Promise<void> {
  for (const choice of choices) {
    if (choice.subscription !== 'opt_in' && choice.subscription !== 'opt_out') {
      throw validation('The `subscription` field must be one of "opt_in" | "opt_out".');
    }
  }
  await assertOwned(
    q,
    accountId,
    'topics',
    choices.map((c) => c.topicId),
    'Topic',
  );
}

/** Writes the contact's explicit topic choices and records contact.topics.updated with them. */
async function writeTopicChoices(q: Queryable, contact: Pick<Contact, 'id' | 'accountId' | 'email'>, choices: TopicChoice[]): Promise<void> {
  if (choices.length === 0) return;
  // The last choice for a topic wins when a request names it twice.
  const byTopic = new Map(choices.map((c) => [c.topicId.toLowerCase(), c.subscription]));
  await q.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription)
     SELECT $1, t, s FROM unnest($2::uuid[], $3::text[]) AS c(t, s)
     ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now()`,
    [contact.id, [...byTopic.keys()], [...byTopic.values()]],
  );
  const topics = [...byTopic].map(([id, subscription]) => ({ id, subscription }));
  await recordEvents(q, [{ accountId: contact.accountId, type: 'contact.topics.updated', data: { email: contact.email, topics } }]);
}

function sameFields(a: Contact, b: Omit<ContactFields, 'unsubscribed'> & { unsubscribed: boolean }): boolean {
  return (
    a.email === b.email &&
    a.firstName === b.firstName &&
    a.lastName === b.lastName &&
    a.unsubscribed === b.unsubscribed &&
    JSON.stringify(sortedEntries(a.properties)) === JSON.stringify(sortedEntries(b.properties ?? {}))
  );
}

const sortedEntries = (o: Record<string, PropertyValue>) => Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1));

async function assertAddressFree(q: Queryable, accountId: string, email: string): Promise<void> {
  const taken = await q.one('SELECT 1 FROM contacts WHERE account_id = $1 AND email = $2', [accountId, email]);
  if (taken) throw validation(`A contact with the email \`${email}\` already exists.`);
}

// Bulk writes for imports (imports/write-batch.ts), each one statement over unnest, whatever
// the batch size. They record no contact.* events: as at Resend (resend-compat-notes §7.1) an
// import is not a webhook per row.

/** The fields an import replaces on an existing contact. */
export interface ContactChange {
  id: string;
  fields: Pick<Contact, 'firstName' | 'lastName' | 'unsubscribed' | 'properties'>;
}

const PREFIXED_COLUMNS = CONTACT_COLUMNS.split(', ')
  .map((c) => `c.${c}`)
  .join(', ');

/** Inserts the contacts whose address is new to the account; the contacts created. */
export async function insertContactsQuietly(q: Queryable, accountId: string, rows: ContactFields[]): Promise<Contact[]> {
  if (rows.length === 0) return [];
  // In address order, as lockContactsByEmail, so two imports into one account lock rows in one order.
  const created = await q.query<ContactRow>(
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
      rows.map((r) => JSON.stringify(r.properties ?? {})),
    ],
  );
  return created.map(toContact);
}

/** The account's contacts with these addresses, locked for update, in address order. */
export async function lockContactsByEmail(q: Queryable, accountId: string, emails: string[]): Promise<Contact[]> {
  if (emails.length === 0) return [];
  const found = await q.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE account_id = $1 AND email = ANY($2::text[]) ORDER BY email FOR UPDATE`,
    [accountId, emails],
  );
  return found.map(toContact);
}

/** What the bulk writes below return of each contact they changed. */
interface ContactIdRow {
  contact_id: string;
}

/** Adds the contacts to those of `segmentIds` the account still has; the ids that joined one. */
export async function joinSegmentsQuietly(q: Queryable, accountId: string, segmentIds: string[], contactIds: string[]): Promise<string[]> {
  if (segmentIds.length === 0 || contactIds.length === 0) return [];
  const rows = await q.query<ContactIdRow>(
    `INSERT INTO segment_contacts (segment_id, contact_id)
     SELECT s.id, c.id FROM segments s CROSS JOIN unnest($3::uuid[]) AS c(id)
      WHERE s.account_id = $1 AND s.id = ANY($2::uuid[])
     ON CONFLICT DO NOTHING
     RETURNING contact_id`,
    [accountId, segmentIds, contactIds],
  );
  return rows.map((r) => r.contact_id);
}

/** Sets the topic choices for the contacts (topics the account has); the ids whose choice changed. */
export async function chooseTopicsQuietly(q: Queryable, accountId: string, topics: TopicChoice[], contactIds: string[]): Promise<string[]> {
  if (topics.length === 0 || contactIds.length === 0) return [];
  const rows = await q.query<ContactIdRow>(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription)
     SELECT c.id, t.id, ch.subscription
       FROM unnest($2::uuid[], $3::text[]) AS ch(topic_id, subscription)
       JOIN topics t ON t.id = ch.topic_id AND t.account_id = $1
      CROSS JOIN unnest($4::uuid[]) AS c(id)
     ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now()
      WHERE contact_topics.subscription IS DISTINCT FROM EXCLUDED.subscription
     RETURNING contact_id`,
    [accountId, topics.map((t) => t.topicId), topics.map((t) => t.subscription), contactIds],
  );
  return rows.map((r) => r.contact_id);
}

/** Replaces the fields of the account's contacts; the contacts as written. */
export async function overwriteContactsQuietly(q: Queryable, accountId: string, changes: ContactChange[]): Promise<Contact[]> {
  if (changes.length === 0) return [];
  const updated = await q.query<ContactRow>(
    `UPDATE contacts c
        SET first_name = u.first_name, last_name = u.last_name, unsubscribed = u.unsubscribed, properties = u.properties, updated_at = now()
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::boolean[], $6::jsonb[]) AS u(id, first_name, last_name, unsubscribed, properties)
      WHERE c.id = u.id AND c.account_id = $1
     RETURNING ${PREFIXED_COLUMNS}`,
    [
      accountId,
      changes.map((c) => c.id),
      changes.map((c) => c.fields.firstName),
      changes.map((c) => c.fields.lastName),
      changes.map((c) => c.fields.unsubscribed),
      changes.map((c) => JSON.stringify(c.fields.properties)),
    ],
  );
  return updated.map(toContact);
}

/** A deleted property's values, removed from every contact of the account that held one (no events). */
export async function dropPropertyValues(q: Queryable, accountId: string, key: string): Promise<void> {
  await q.query('UPDATE contacts SET properties = properties - $2::text WHERE account_id = $1 AND properties ? $2', [accountId, key]);
}
