// How a template reads over the API (resend-compat-notes §2.9, the SDK's `Template`): GET
// shows the draft with its publication state; the list shows the summary.
import { restTimestamp } from '../api/format.js';
import { array, boolean, constant, nullable, number, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Row } from '../db/database.js';
import type { TemplateVariable } from './variables.js';

/** Everything but the published copy, which only sending reads. */
export const TEMPLATE_COLUMNS = `id, name, alias, from_address, subject, reply_to, html, text, variables, draft_version_id,
  published_version_id, published_at, created_at, updated_at`;
export const SUMMARY_COLUMNS = 'id, name, alias, published_version_id, published_at, created_at, updated_at';

const VARIABLE_SCHEMA = object({
  id: uuid(),
  key: string(),
  type: oneOfValues(['string', 'number']),
  fallback_value: nullable({ oneOf: [string(), number()] }),
  created_at: restTime(),
  updated_at: restTime(),
});

/** templateSummary's shape, for the routes' docs. */
export const TEMPLATE_SUMMARY_SCHEMA = object({
  id: uuid(),
  name: string(),
  status: oneOfValues(['draft', 'published']),
  published_at: nullable(restTime()),
  created_at: restTime(),
  updated_at: restTime(),
  alias: nullable(string()),
});

/** templateDetail's shape. */
export const TEMPLATE_SCHEMA = object({
  object: constant('template'),
  id: uuid(),
  current_version_id: uuid(),
  name: string(),
  alias: nullable(string()),
  from: nullable(string()),
  subject: nullable(string()),
  reply_to: nullable(array(string())),
  html: string(),
  text: nullable(string()),
  variables: array(VARIABLE_SCHEMA),
  created_at: restTime(),
  updated_at: restTime(),
  status: oneOfValues(['draft', 'published']),
  published_at: nullable(restTime()),
  has_unpublished_versions: boolean(),
});

const status = (row: Row) => (row.published_version_id ? 'published' : 'draft');

export function templateSummary(row: Row) {
  return {
    id: row.id as string,
    name: row.name as string,
    status: status(row),
    published_at: restTimestamp(row.published_at),
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
    alias: (row.alias as string | null) ?? null,
  };
}

export function templateDetail(row: Row) {
  return {
    object: 'template' as const,
    id: row.id as string,
    current_version_id: row.draft_version_id as string,
    name: row.name as string,
    alias: (row.alias as string | null) ?? null,
    from: (row.from_address as string | null) ?? null,
    subject: (row.subject as string | null) ?? null,
    reply_to: (row.reply_to as string[] | null) ?? null,
    html: row.html as string,
    text: (row.text as string | null) ?? null,
    variables: row.variables as TemplateVariable[],
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
    status: status(row),
    published_at: restTimestamp(row.published_at),
    has_unpublished_versions: row.draft_version_id !== row.published_version_id,
  };
}
