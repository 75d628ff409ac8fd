// Finding templates by id or alias, always within the caller's account: for the /templates
// routes (the draft) and for sending (the published version of every template a submission
// names, in one query).
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import { TEMPLATE_COLUMNS, type TemplateRow } from './template-view.js';
import type { TemplateVariable } from './variables.js';

/** One template of the account by id or alias; 404 "Template not found" otherwise. */
export async function findTemplate(q: Queryable, accountId: string, ref: string, options: { lock?: boolean } = {}): Promise<TemplateRow> {
  // Aliases are never UUID-shaped (template-fields.ts), so a ref is one or the other.
  const row = await q.one<TemplateRow>(
    `SELECT ${TEMPLATE_COLUMNS} FROM templates
      WHERE account_id = $1 AND ${isUuid(ref) ? 'id = $2::uuid' : 'alias = $2'} ${options.lock ? 'FOR UPDATE' : ''}`,
    [accountId, ref],
  );
  if (!row) throw notFound('Template');
  return row;
}

/** What sending uses: the version frozen by the last publish. */
export interface PublishedTemplate {
  id: string;
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
}

interface PublishedRow {
  id: string;
  alias: string | null;
  /** The version frozen by the last publish (publish-template.ts); null: never published. */
  published: Omit<PublishedTemplate, 'id'> | null;
}

/**
 * The templates `refs` (ids or aliases) name, keyed by each ref as given: the published
 * version, 'draft' for a template never published, absent for no such template.
 */
export async function findPublishedTemplates(q: Queryable, accountId: string, refs: string[]): Promise<Map<string, PublishedTemplate | 'draft'>> {
  const unique = [...new Set(refs)];
  const ids = unique.filter(isUuid);
  const aliases = unique.filter((r) => !isUuid(r));
  const rows = await q.query<PublishedRow>(
    `SELECT id, alias, published FROM templates
      WHERE account_id = $1 AND (id = ANY($2::uuid[]) OR alias = ANY($3::text[]))`,
    [accountId, ids, aliases],
  );
  const found = new Map<string, PublishedTemplate | 'draft'>();
  for (const row of rows) {
    const value = row.published ? { id: row.id, ...row.published } : 'draft';
    found.set(row.id, value);
    if (row.alias) found.set(row.alias, value);
  }
  // Ids are matched case-insensitively by PostgreSQL; key them as the caller wrote them.
  for (const ref of ids) {
    const row = rows.find((r) => r.id === ref.toLowerCase());
    if (row) found.set(ref, found.get(row.id)!);
  }
  return found;
}
