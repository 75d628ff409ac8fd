// /contacts request bodies: their schemas, which check them before the handlers run
// (request-schema.ts), and what the handlers make of a checked body: the store's fields (the
// store judges addresses and properties). PATCH /contacts/:contact/topics, whose body is an
// array or an object, still reads its choices with parseTopicChoices.
import { ApiError, missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { array, boolean, input, type JsonSchema, oneOfValues, string, uuid } from '../api/schema.js';
import { rejectUnknown, type Body } from '../api/validate.js';
import type { ContactFields, PropertyValue, Subscription, TopicChoice } from './contact-store.js';
import { CONTACT_EMAIL_SCHEMA, NAME_SCHEMA, PROPERTIES_SCHEMA } from './contact-fields.js';

const MAX_LIST = 100;

/** What parseTopicChoices takes, and the `topics` of POST /contacts. */
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

/** `[{id, subscription}]`, for POST /contacts `topics` and PATCH /contacts/:contact/topics. */
export function parseTopicChoices(value: unknown, field: string): TopicChoice[] {
  if (value === undefined || value === null) return [];
  return parseList(value, field).map((item, i) => {
    const where = `${field}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw validation(`The \`${where}\` field must be an object.`);
    const choice = item as Body;
    rejectUnknown(choice, ['id', 'subscription'], `${where}.`);
    if (choice.id === undefined || choice.id === null) throw missingField(`${where}.id`);
    if (choice.subscription === undefined || choice.subscription === null) throw missingField(`${where}.subscription`);
    if (choice.subscription !== 'opt_in' && choice.subscription !== 'opt_out') {
      throw validation(`The \`${where}.subscription\` field must be one of "opt_in" | "opt_out".`);
    }
    return { topicId: parseId(choice.id, `${where}.id`), subscription: choice.subscription };
  });
}

function parseList(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw validation(`The \`${field}\` field must be an array.`);
  if (value.length > MAX_LIST) throw validation(`The \`${field}\` field must have at most ${MAX_LIST} items.`);
  return value;
}

function parseId(value: unknown, field: string): string {
  if (!isUuid(value)) throw new ApiError('invalid_parameter', `The \`${field}\` must be a valid UUID.`);
  return value.toLowerCase();
}
