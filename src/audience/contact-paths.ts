// The two URL families of a contact: /contacts/:contact and the deprecated
// /audiences/:id/contacts/:contact. Audiences became segments, so a legacy path
// names a segment of the account (404 "Audience not found" otherwise) and then acts on the
// account's contact exactly as the /contacts path does; creating through it also adds the
// contact to that segment.
import { notFound } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { findContact, type Contact } from './contact-store.js';
import { findSegment } from './segment-view.js';

export type ContactPath = 'contacts' | 'audiences';

export const contactCollectionUrl = (path: ContactPath) => (path === 'contacts' ? '/contacts' : '/audiences/:id/contacts');
export const contactUrl = (path: ContactPath) => `${contactCollectionUrl(path)}/:contact`;

/** The legacy path's segment id (after checking it is the account's); undefined on /contacts. */
export async function legacyAudience(q: Queryable, accountId: string, params: Record<string, string>): Promise<string | undefined> {
  if (params.id === undefined) return undefined;
  return (await findSegment(q, accountId, params.id, 'audience')).id as string;
}

/** The contact the path names, or 404 "Contact not found". */
export async function pathContact(q: Queryable, accountId: string, params: Record<string, string>): Promise<Contact> {
  await legacyAudience(q, accountId, params);
  const contact = await findContact(q, accountId, params.contact ?? '');
  if (!contact) throw notFound('Contact');
  return contact;
}
