// How a template reads over the API (resend-compat-notes §2.9, the SDK's `Template`): GET
// shows the draft with its publication state; the list shows the summary.
import { restTimestamp } from '../api/format.js';
import { array, boolean, constant, nullable, number, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { TemplateVariable } from './variables.js';

/** Everything but the published copy, which only sending reads. */
export const TEMPLATE_COLUMNS = `id, name, alias, from_address, subject, reply_to, html, text, variables, draft_version_id,
  published_version_id, published_at, created_at, updated_at`;
export const SUMMARY_COLUMNS = 'id, name, alias, published_version_id, published_at, created_at, updated_at';
/** A template as SUMMARY_COLUMNS reads it. */
export interface TemplateSummaryRow {
  id: string;
  name: string;
  alias: string | null;
  published_version_id: string | null;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
}
/** A template as TEMPLATE_COLUMNS reads it. */
export interface TemplateRow extends TemplateSummaryRow {
  from_address: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
  draft_version_id: string;
}

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

const status = (row: TemplateSummaryRow) => (row.published_version_id ? 'published' : 'draft');

export function templateSummary(row: TemplateSummaryRow) {
  return {
    id: row.id,
    name: row.name,
    status: status(row),
    published_at: restTimestamp(row.published_at),
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
    alias: row.alias ?? null,
  };
}

export function templateDetail(row: TemplateRow) {
  return {
    object: 'template' as const,
    id: row.id,
    current_version_id: row.draft_version_id,
    name: row.name,
    alias: row.alias ?? null,
    from: row.from_address ?? null,
    subject: row.subject ?? null,
    reply_to: row.reply_to ?? null,
    html: row.html,
    text: row.text ?? null,
    variables: row.variables,
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at)!,
    status: status(row),
    published_at: restTimestamp(row.published_at),
    has_unpublished_versions: row.draft_version_id !== row.published_version_id,
  };
}
