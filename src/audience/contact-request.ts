// /contacts request bodies: their schemas, which check them before the handlers run
// (request-schema.ts), and what the handlers make of a checked body: the store's fields (the
// store judges addresses and properties).
import { missingField } from '../api/errors.js';
import { array, boolean, input, type JsonSchema, oneOfValues, string, uuid } from '../api/schema.js';
import type { ContactFields, PropertyValue, Subscription, TopicChoice } from './contact-store.js';
import { CONTACT_EMAIL_SCHEMA, NAME_SCHEMA, PROPERTIES_SCHEMA } from './contact-fields.js';

const MAX_LIST = 100;

/** The `topics` of POST /contacts, and the choices of PATCH /contacts/:contact/topics. */
export const TOPIC_CHOICES_SCHEMA = array(input({ id: uuid(), subscription: oneOfValues(['opt_in', 'opt_out']) }, ['id', 'subscription']), {
  maxItems: MAX_LIST,
});
const COMMON_SCHEMA: Record<string, JsonSchema> = {
  email: CONTACT_EMAIL_SCHEMA,
  first_name: NAME_SCHEMA,
  last_name: NAME_SCHEMA,
  unsubscribed: boolean(),
  properties: PROPERTIES_SCHEMA,
};
/**
 * A segment as `segments` names it. A refused one fails the first branch whatever it is, so
 * that branch's message speaks for both.
 */
const SEGMENT_REF_SCHEMA: JsonSchema = {
  oneOf: [string({ format: 'uuid', 'x-message': 'be a segment id, or an object `{"id": <segment id>}`' }), input({ id: uuid() }, ['id'])],
};
/** The bodies of POST and PATCH /contacts: their check (request-schema.ts) and docs. */
export const CREATE_CONTACT_SCHEMA = input(
  {
    ...COMMON_SCHEMA,
    segments: array(SEGMENT_REF_SCHEMA, { maxItems: MAX_LIST, description: 'Segments to add it to: ids, or `{id}`.' }),
    topics: TOPIC_CHOICES_SCHEMA,
    audience_id: uuid('Deprecated: a segment to add it to.'),
  },
  ['email'],
);
export const UPDATE_CONTACT_SCHEMA = input(COMMON_SCHEMA);

/** The body of PATCH /contacts/:contact once it passed UPDATE_CONTACT_SCHEMA; null clears a name or a property. */
export interface ContactBody {
  email?: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  properties?: Record<string, PropertyValue>;
}

/** The body of POST /contacts once it passed CREATE_CONTACT_SCHEMA. */
export interface CreateContactBody extends ContactBody {
  email: string;
  segments?: (string | { id: string })[];
  topics?: { id: string; subscription: Subscription }[];
  audience_id?: string;
}

interface CreateRequest {
  fields: ContactFields;
  segmentIds: string[];
  topics: TopicChoice[];
}

/** The store's fields of a checked POST /contacts body (the store judges the address and the properties). */
export function createRequest(body: CreateContactBody): CreateRequest {
  // An empty address reads as a missing one, as it always has (contacts-api.test.ts sends it through the SDK).
  if (body.email === '') throw missingField('email');
  const segmentIds = (body.segments ?? []).map((segment) => (typeof segment === 'string' ? segment : segment.id).toLowerCase());
  if (body.audience_id !== undefined) segmentIds.push(body.audience_id.toLowerCase());
  const topics = (body.topics ?? []).map((choice) => ({ topicId: choice.id.toLowerCase(), subscription: choice.subscription }));
  return { fields: { ...contactChanges(body), email: body.email }, segmentIds, topics };
}

/** The store's changes of a checked PATCH /contacts/:contact body. */
export function contactChanges(body: ContactBody): Partial<ContactFields> {
  return {
    ...(body.email !== undefined ? { email: body.email } : {}),
    firstName: body.first_name,
    lastName: body.last_name,
    unsubscribed: body.unsubscribed,
    properties: body.properties,
  };
}
