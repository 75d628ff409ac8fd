// Reading /contacts request bodies into the store's fields. Types are checked here (wrong
// types are 422 before anything is written); the store checks addresses and properties.
import { ApiError, missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { array, boolean, input, type JsonSchema, oneOfValues, uuid } from '../api/schema.js';
import { objectBody, rejectUnknown, type Body } from '../api/validate.js';
import type { ContactFields, TopicChoice } from './contact-store.js';
import { CONTACT_EMAIL_SCHEMA, NAME_SCHEMA, PROPERTIES_SCHEMA, parseName, parsePropertiesShape, parseUnsubscribed } from './contact-fields.js';

const CREATE_FIELDS = ['email', 'first_name', 'last_name', 'unsubscribed', 'properties', 'segments', 'topics', 'audience_id'];
const UPDATE_FIELDS = ['email', 'first_name', 'last_name', 'unsubscribed', 'properties'];
const MAX_LIST = 100;

/** What parseTopicChoices takes. */
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
/** The bodies parseCreateRequest and parseUpdateRequest take, for the routes' docs. */
export const CREATE_CONTACT_SCHEMA = input(
  {
    ...COMMON_SCHEMA,
    segments: array({ oneOf: [uuid(), input({ id: uuid() }, ['id'])] }, { maxItems: MAX_LIST, description: 'Segments to add it to: ids, or `{id}`.' }),
    topics: TOPIC_CHOICES_SCHEMA,
    audience_id: uuid('Deprecated: a segment to add it to.'),
  },
  ['email'],
);
export const UPDATE_CONTACT_SCHEMA = input(COMMON_SCHEMA);

interface CreateRequest {
  fields: ContactFields;
  segmentIds: string[];
  topics: TopicChoice[];
}

export function parseCreateRequest(raw: unknown): CreateRequest {
  const body = objectBody(raw);
  rejectUnknown(body, CREATE_FIELDS);
  if (body.email === undefined || body.email === null || body.email === '') throw missingField('email');
  const fields: ContactFields = { email: body.email as string, ...parseCommon(body) };
  const segmentIds = parseSegments(body.segments);
  if (body.audience_id !== undefined && body.audience_id !== null) segmentIds.push(parseId(body.audience_id, 'audience_id'));
  return { fields, segmentIds, topics: parseTopicChoices(body.topics, 'topics') };
}

export function parseUpdateRequest(raw: unknown): Partial<ContactFields> {
  const body = objectBody(raw);
  rejectUnknown(body, UPDATE_FIELDS);
  const changes: Partial<ContactFields> = parseCommon(body);
  if (body.email !== undefined && body.email !== null) changes.email = body.email as string;
  return changes;
}

function parseCommon(body: Body): Omit<ContactFields, 'email'> {
  if (typeof body.email !== 'string' && body.email !== undefined && body.email !== null) {
    throw validation('The `email` field must be a string.');
  }
  return {
    firstName: parseName(body.first_name, 'first_name'),
    lastName: parseName(body.last_name, 'last_name'),
    unsubscribed: parseUnsubscribed(body.unsubscribed),
    properties: parsePropertiesShape(body.properties),
  };
}

/** `segments`: `[{id}]` as the SDK sends, or `[id]` as the OpenAPI file says; both accepted. */
function parseSegments(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = parseList(value, 'segments');
  return list.map((item, i) => {
    const id = typeof item === 'object' && item !== null && !Array.isArray(item) ? onlyId(item as Body, `segments[${i}]`) : item;
    return parseId(id, `segments[${i}]`);
  });
}

function onlyId(item: Body, where: string): unknown {
  rejectUnknown(item, ['id'], `${where}.`);
  return item.id;
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
