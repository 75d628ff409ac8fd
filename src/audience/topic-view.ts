// Topics over the API (resend-compat-notes §2.7): what a contact may opt in to or out of.
// default_subscription is fixed at creation: it decides for every contact without an
// explicit choice, so changing it would silently re-subscribe people.
import { notFound } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import { constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';

export const TOPIC_COLUMNS = 'id, name, description, default_subscription, visibility, created_at';
/** What a topic.* event is made of (recordTopicEvent). */
export const TOPIC_EVENT_COLUMNS = `${TOPIC_COLUMNS}, updated_at`;

/** A topic as TOPIC_COLUMNS reads it. */
export interface TopicRow {
  id: string;
  name: string;
  description: string | null;
  default_subscription: (typeof SUBSCRIPTIONS)[number];
  visibility: (typeof VISIBILITIES)[number];
  created_at: Date;
}
/** A topic as TOPIC_EVENT_COLUMNS reads it. */
export interface TopicEventRow extends TopicRow {
  updated_at: Date;
}

/** Records topic.created / .updated / .deleted of a topic row (TOPIC_EVENT_COLUMNS), in the change's transaction. */
export async function recordTopicEvent(
  q: Queryable,
  accountId: string,
  type: 'topic.created' | 'topic.updated' | 'topic.deleted',
  row: TopicEventRow,
): Promise<void> {
  const data = {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    default_subscription: row.default_subscription,
    deleted: type === 'topic.deleted',
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
  await recordEvents(q, [{ accountId, type, data }]);
}
export const SUBSCRIPTIONS = ['opt_in', 'opt_out'] as const;
export const VISIBILITIES = ['public', 'private'] as const;
const MAX_TOPIC_NAME = 50;
const MAX_TOPIC_DESCRIPTION = 200;

/** The account's topic `id` (a route's `:id`, a UUID its schema checked), or 404. */
export async function findTopic(q: Queryable, accountId: string, id: string | undefined, options: { lock?: boolean } = {}): Promise<TopicRow> {
  const row = await q.one<TopicRow>(`SELECT ${TOPIC_COLUMNS} FROM topics WHERE id = $1 AND account_id = $2${options.lock ? ' FOR UPDATE' : ''}`, [
    id,
    accountId,
  ]);
  if (!row) throw notFound('Topic');
  return row;
}

/** The fields of POST and PATCH /topics: their check (request-schema.ts) and docs. */
export const TOPIC_FIELD_SCHEMAS = {
  name: string({ minLength: 1, maxLength: MAX_TOPIC_NAME }),
  description: nullable(string({ maxLength: MAX_TOPIC_DESCRIPTION, description: 'null: none.' })),
  visibility: oneOfValues(VISIBILITIES, { description: 'public: shown on the unsubscribe page.' }),
  default_subscription: oneOfValues(SUBSCRIPTIONS, { description: 'For contacts without a choice of their own; fixed once created.' }),
};

/** A topic's fields as POST and PATCH /topics take them, once checked. */
export interface TopicFields {
  name?: string;
  description?: string | null;
  visibility?: (typeof VISIBILITIES)[number];
  default_subscription?: (typeof SUBSCRIPTIONS)[number];
}

/** topicSummary's shape: `description` is left out when the topic has none (the SDK declares it optional). */
const TOPIC_SUMMARY_REQUIRED = ['id', 'name', 'default_subscription', 'visibility', 'created_at'];
export const TOPIC_SUMMARY_SCHEMA = object(
  {
    id: uuid(),
    name: string(),
    description: string(),
    default_subscription: oneOfValues(SUBSCRIPTIONS),
    visibility: oneOfValues(VISIBILITIES),
    created_at: restTime(),
  },
  TOPIC_SUMMARY_REQUIRED,
);
export const TOPIC_SCHEMA = object({ object: constant('topic'), ...TOPIC_SUMMARY_SCHEMA.properties }, ['object', ...TOPIC_SUMMARY_REQUIRED]);

export function topicSummary(row: TopicRow) {
  return {
    id: row.id,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    default_subscription: row.default_subscription,
    visibility: row.visibility,
    created_at: restTimestamp(row.created_at)!,
  };
}

export function topicDetail(row: TopicRow) {
  return { object: 'topic' as const, ...topicSummary(row) };
}
