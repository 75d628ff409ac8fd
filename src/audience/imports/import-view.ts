// How an import is shown (resend-compat-notes §2.6; openapi ContactImport): the same object in
// GET /contacts/imports and GET /contacts/imports/:id. The single GET adds `errors`, the first
// rows that failed with their line in the file (a Postline addition: Resend only counts them).
import { restTimestamp } from '../../api/format.js';
import { array, constant, integer, nullable, object, oneOfValues, restTime, string, uuid } from '../../api/schema.js';
import type { RowError } from './import-row.js';

export const IMPORT_COLUMNS = 'id, status, created_at, completed_at, total, created, updated, skipped, failed';
/** The imports the API shows: an upload still arriving is not an import yet. */
export const VISIBLE = `status <> 'uploading'`;

export const IMPORT_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;

/** A visible import as IMPORT_COLUMNS reads it. */
export interface ContactImportRow {
  id: string;
  status: (typeof IMPORT_STATUSES)[number];
  created_at: Date;
  completed_at: Date | null;
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}
/** With `errors`: GET /contacts/imports/:id. */
export interface ContactImportDetailRow extends ContactImportRow {
  errors: RowError[];
}

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

export function importView(row: ContactImportRow) {
  return {
    object: 'contact_import' as const,
    id: row.id,
    status: row.status,
    created_at: restTimestamp(row.created_at)!,
    completed_at: restTimestamp(row.completed_at),
    counts: {
      total: row.total,
      created: row.created,
      updated: row.updated,
      skipped: row.skipped,
      failed: row.failed,
    },
  };
}

export function importDetail(row: ContactImportDetailRow) {
  return { ...importView(row), errors: row.errors };
}
