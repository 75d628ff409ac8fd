// How an import is shown (resend-compat-notes §2.6; openapi ContactImport): the same object in
// GET /contacts/imports and GET /contacts/imports/:id. The single GET adds `errors`, the first
// rows that failed with their line in the file (a Postline addition: Resend only counts them).
import { restTimestamp } from '../../api/format.js';
import { array, constant, integer, nullable, object, oneOfValues, restTime, string, uuid } from '../../api/schema.js';
import type { Row } from '../../db/database.js';

export const IMPORT_COLUMNS = 'id, status, created_at, completed_at, total, created, updated, skipped, failed';
/** The imports the API shows: an upload still arriving is not an import yet. */
export const VISIBLE = `status <> 'uploading'`;

export const IMPORT_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

/** importView's shape, for the routes' docs. */
export const IMPORT_SCHEMA = object({
  object: constant('contact_import'),
  id: uuid(),
  status: oneOfValues(IMPORT_STATUSES),
  created_at: restTime(),
  completed_at: nullable(restTime()),
  counts: object({ total: integer(), created: integer(), updated: integer(), skipped: integer(), failed: integer() }),
});
/** importDetail's shape. */
export const IMPORT_DETAIL_SCHEMA = object({
  ...IMPORT_SCHEMA.properties,
  errors: array(object({ line: nullable(integer()), message: string() }), { description: 'The first rows that failed (a Postline addition).' }),
});

export function importView(row: Row) {
  return {
    object: 'contact_import' as const,
    id: row.id as string,
    status: row.status as 'queued' | 'in_progress' | 'completed' | 'failed',
    created_at: restTimestamp(row.created_at)!,
    completed_at: restTimestamp(row.completed_at),
    counts: {
      total: row.total as number,
      created: row.created as number,
      updated: row.updated as number,
      skipped: row.skipped as number,
      failed: row.failed as number,
    },
  };
}

export function importDetail(row: Row) {
  return { ...importView(row), errors: row.errors as { line: number | null; message: string }[] };
}
