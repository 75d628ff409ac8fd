// The two URL families of a contact: /contacts/:contact and the deprecated
// /audiences/:id/contacts/:contact. Audiences became segments, so a legacy path
// names a segment of the account (404 "Audience not found" otherwise) and then acts on the
// account's contact exactly as the /contacts path does; creating through it also adds the
// contact to that segment.
import { notFound } from '../api/errors.js';
import type { RouteDoc } from '../api/route.js';
import { string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { findContact, type Contact } from './contact-store.js';
import { findSegment } from './segment-view.js';

export type ContactPath = 'contacts' | 'audiences';

export const contactCollectionUrl = (path: ContactPath) => (path === 'contacts' ? '/contacts' : '/audiences/:id/contacts');
export const contactUrl = (path: ContactPath) => `${contactCollectionUrl(path)}/:contact`;

const LEGACY = {
  addition: true as const,
  description: "Deprecated: audiences became segments. The resend SDK's older paths, not in Resend's published OpenAPI description.",
};
/** What the doc of a route on contactCollectionUrl(path) says of its path: the legacy family is Postline's addition. */
export function collectionPathDoc(path: ContactPath): Pick<RouteDoc, 'params' | 'addition' | 'description'> {
  return path === 'contacts' ? {} : { ...LEGACY, params: { id: uuid('The segment (formerly audience).') } };
}
/** The same for a route on contactUrl(path): `:contact` is an id or an address. */
export function contactPathDoc(path: ContactPath): Pick<RouteDoc, 'params' | 'addition' | 'description'> {
  const legacy = collectionPathDoc(path);
  return { ...legacy, params: { ...legacy.params, contact: CONTACT_KEY_SCHEMA } };
}
/** A path's `:contact`, as contactKey reads it. */
export const CONTACT_KEY_SCHEMA = string({ description: 'The contact id, or its address (unencoded).' });

/** The legacy path's segment id (after checking it is the account's); undefined on /contacts. */
export async function legacyAudience(q: Queryable, accountId: string, params: Record<string, string>): Promise<string | undefined> {
  if (params.id === undefined) return undefined;
  return (await findSegment(q, accountId, params.id, 'audience')).id;
}

/** The contact the path names, or 404 "Contact not found". */
export async function pathContact(q: Queryable, accountId: string, params: Record<string, string>): Promise<Contact> {
  await legacyAudience(q, accountId, params);
  const contact = await findContact(q, accountId, params.contact ?? '');
  if (!contact) throw notFound('Contact');
  return contact;
}
