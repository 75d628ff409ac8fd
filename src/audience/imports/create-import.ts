// POST /contacts/imports (multipart: `file`, `column_map`, `on_conflict`, `segments`, `topics`):
// stores the CSV and queues its import; 201 {object:'contact_import', id} once the queued
// import is committed. The rows are read by the import worker (import-worker.ts), not here:
// a million-row file takes longer than a client should wait, and the SDK sends the options
// after the file, so they are known only once the whole file has arrived anyway.
import { ApiError, missingField, validation } from '../../api/errors.js';
import type { FormPart, Route } from '../../api/route.js';
import { objectId } from '../../api/schema.js';
import type { Db, Queryable } from '../../db/database.js';
import {
  checkImportOptions,
  defaultOptions,
  IMPORT_FIELDS,
  IMPORT_FORM_SCHEMA,
  readOptionField,
  type ImportField,
  type ImportOptions,
} from './import-options.js';
import { discardUpload, storeUpload } from './import-upload.js';

/** "Maximum size is 50MB" (openapi CreateContactImportOptions.file). */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

export function createImport(db: Db): Route {
  return {
    method: 'POST',
    url: '/contacts/imports',
    bodyShape: 'multipart',
    maxFileBytes: MAX_FILE_BYTES,
    doc: {
      summary: 'Import contacts from a CSV (queued; the rows are read in the background)',
      body: IMPORT_FORM_SCHEMA,
      response: { status: 201, schema: objectId('contact_import') },
    },
    async handler({ principal, form }) {
      const { accountId } = principal;
      let upload: { importId: string; bytes: number } | undefined;
      try {
        const options = defaultOptions();
        upload = await readForm(db, accountId, form!, options);
        if (!upload) throw missingField('file');
        if (upload.bytes === 0) throw validation('The `file` field is an empty file.');
        const importId = upload.importId;
        await db.tx(async (q) => {
          await checkImportOptions(q, accountId, options);
          await queueImport(q, importId, options);
        });
        return { status: 201, body: { object: 'contact_import', id: importId } };
      } catch (err) {
        if (upload) await discardUpload(db, upload.importId).catch(() => {});
        throw err;
      }
    },
  };
}

/**
 * Reads the form in the client's order: each option field as it comes, the file into the
 * database. Returns the stored upload (undefined without a file part). A bad part stops the
 * read; an upload already stored is then discarded by the caller or here.
 */
async function readForm(db: Db, accountId: string, form: AsyncIterable<FormPart>, options: ImportOptions) {
  const seen = new Set<string>();
  let upload: { importId: string; bytes: number } | undefined;
  try {
    for await (const part of form) {
      if (!IMPORT_FIELDS.includes(part.name)) throw validation(`Unknown field \`${part.name}\`.`);
      if (seen.has(part.name)) throw validation(`The \`${part.name}\` field is given more than once.`);
      seen.add(part.name);
      if (part.name === 'file') {
        if (part.kind !== 'file') throw validation('The `file` field must be a file (a CSV upload), not a text field.');
        upload = await storeUpload(db, accountId, part.content);
      } else {
        if (part.kind !== 'field') throw validation(`The \`${part.name}\` field must be a text field, not a file.`);
        readOptionField(options, part.name as ImportField, part.value);
      }
    }
  } catch (err) {
    if (upload) await discardUpload(db, upload.importId).catch(() => {});
    throw err;
  }
  return upload;
}

async function queueImport(q: Queryable, importId: string, options: ImportOptions): Promise<void> {
  const rows = await q.query(
    `UPDATE contact_imports
        SET status = 'queued', on_conflict = $2, column_map = $3, segment_ids = $4, topics = $5, lease_until = NULL
      WHERE id = $1 AND status = 'uploading' RETURNING id`,
    [
      importId,
      options.onConflict,
      JSON.stringify(options.columnMap),
      options.segmentIds,
      JSON.stringify(options.topics.map((t) => ({ id: t.topicId, subscription: t.subscription }))),
    ],
  );
  if (rows.length === 0) throw new ApiError('application_error', 'The upload was abandoned; send the file again.');
}
