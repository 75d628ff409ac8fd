// Runs one import the worker holds, from where it stands to its end:
//
//   read the stored file → CSV records → header: resolve the columns → skip the rows already
//   done (a resumed run) → each row: a contact or a row error → batches of BATCH_ROWS →
//   writeBatch (one transaction each) → completed | failed
//
// Memory stays flat whatever the file's size: one stored chunk, one parsed slice and one
// batch at a time. A row repeating an address of the batch being filled starts a new batch,
// so the repeat meets the first row's contact as an existing one (skipped or upserted), as it
// would in a later batch.
import type { Db } from '../../db/database.js';
import { csvRecords, ImportFailure } from './csv-records.js';
import type { ColumnMap } from './import-options.js';
import { isRowError, readRow, resolveColumns, type Columns, type RowError } from './import-row.js';
import { readUpload } from './import-upload.js';
import { writeBatch, type Batch, type ImportJob } from './write-batch.js';

/** Rows per transaction: large enough that per-statement costs vanish, small enough to stay a short transaction. */
const BATCH_ROWS = 2_000;

type RunOutcome = 'completed' | 'failed' | 'stopped';

export async function runImport(db: Db, job: ImportJob, columnMap: ColumnMap, shouldStop: () => boolean): Promise<RunOutcome> {
  let columns: Columns | undefined;
  let toSkip = job.done;
  let batch: Batch = { rows: [], errors: [] };
  let addresses = new Set<string>();
  const flush = async () => {
    if (batch.rows.length + batch.errors.length === 0) return;
    await writeBatch(db, job, batch);
    batch = { rows: [], errors: [] };
    addresses = new Set();
  };
  try {
    for await (const records of csvRecords(readUpload(db, job.id))) {
      for (const record of records) {
        if (!columns) {
          if ('error' in record) throw new ImportFailure(record.line, `The header line cannot be read: ${record.error}`);
          columns = resolveColumns(record.cells, columnMap, record.line);
          continue;
        }
        if (toSkip > 0) {
          toSkip--;
          continue;
        }
        const row = 'error' in record ? ({ line: record.line, message: record.error } satisfies RowError) : readRow(record.cells, columns, record.line);
        if (isRowError(row)) {
          batch.errors.push(row);
        } else {
          if (addresses.has(row.email)) await flush();
          addresses.add(row.email);
          batch.rows.push(row);
        }
        if (batch.rows.length + batch.errors.length >= BATCH_ROWS) {
          await flush();
          // Rows read but not committed are simply read again by whoever resumes.
          if (shouldStop()) return 'stopped';
        }
      }
    }
    if (!columns) throw new ImportFailure(null, 'The file has no header line.');
    await flush();
  } catch (err) {
    if (!(err instanceof ImportFailure)) throw err;
    await failImport(db, job, err);
    return 'failed';
  }
  await completeImport(db, job);
  return 'completed';
}

/** The end: its chunks deleted with it, the lease dropped. */
async function completeImport(db: Db, job: ImportJob): Promise<void> {
  await finish(db, job, 'completed', []);
}

/** The file cannot be imported (further): rows already committed stay, the reason is the last error. */
async function failImport(db: Db, job: ImportJob, failure: ImportFailure): Promise<void> {
  await finish(db, job, 'failed', [{ line: failure.line, message: failure.message }]);
}

async function finish(db: Db, job: ImportJob, status: 'completed' | 'failed', errors: RowError[]): Promise<void> {
  await db.tx(async (q) => {
    const rows = await q.query(
      `UPDATE contact_imports
          SET status = $3, completed_at = now(), errors = errors || $4::jsonb, lease_token = NULL, lease_until = NULL
        WHERE id = $1 AND lease_token = $2 AND status = 'in_progress' RETURNING id`,
      [job.id, job.leaseToken, status, JSON.stringify(errors)],
    );
    if (rows.length > 0) await q.query('DELETE FROM contact_import_chunks WHERE import_id = $1', [job.id]);
  });
}

/** An import that keeps failing on something other than its file (see import-worker.ts); unless another worker took it meanwhile. */
export async function giveUpImport(db: Db, importId: string, message: string): Promise<void> {
  await db.tx(async (q) => {
    await q.query(
      `UPDATE contact_imports
          SET status = 'failed', completed_at = now(), errors = errors || $2::jsonb, lease_token = NULL, lease_until = NULL
        WHERE id = $1 AND status = 'in_progress' AND lease_token IS NULL`,
      [importId, JSON.stringify([{ line: null, message }])],
    );
    await q.query('DELETE FROM contact_import_chunks WHERE import_id = $1', [importId]);
  });
}
