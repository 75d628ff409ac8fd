// The uploaded file, kept in the database in ~1 MiB chunks (contact_import_chunks) so any node's
// worker can read it and a restart loses nothing. Writing: the request streams the file in
// chunk by chunk, each its own short statement (no transaction stays open while the client
// sends: an open transaction would hold back webhook dispatch); the import row stays
// 'uploading', invisible to the API, until the whole form is read and checked. An upload
// whose request died is deleted by the worker once its `lease_until` has passed.
import crypto from 'node:crypto';
import { ApiError } from '../../api/errors.js';
import type { Db, Queryable } from '../../db/database.js';

const CHUNK_BYTES = 1024 * 1024;
/** An upload not added to for this long is abandoned (the request died with its node). */
const UPLOAD_IDLE_MS = 10 * 60_000;

/** Streams `content` into a new 'uploading' import of `accountId`; its id and size. */
export async function storeUpload(db: Db, accountId: string, content: AsyncIterable<Buffer>): Promise<{ importId: string; bytes: number }> {
  const importId = crypto.randomUUID();
  await db.query(
    `INSERT INTO contact_imports (id, account_id, status, lease_until)
     VALUES ($1, $2, 'uploading', now() + $3 * interval '1 millisecond')`,
    [importId, accountId, UPLOAD_IDLE_MS],
  );
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let seq = 0;
  let bytes = 0;
  const flush = async () => {
    await appendChunk(db, importId, seq++, Buffer.concat(pending, pendingBytes));
    bytes += pendingBytes;
    pending = [];
    pendingBytes = 0;
  };
  try {
    for await (const chunk of content) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    if (pendingBytes > 0) await flush();
  } catch (err) {
    await discardUpload(db, importId).catch(() => {});
    throw err;
  }
  return { importId, bytes };
}

async function appendChunk(db: Db, importId: string, seq: number, data: Buffer): Promise<void> {
  const rows = await db.query(
    `WITH upload AS (
       UPDATE contact_imports SET file_bytes = file_bytes + $4, lease_until = now() + $5 * interval '1 millisecond'
        WHERE id = $1 AND status = 'uploading' RETURNING id)
     INSERT INTO contact_import_chunks (import_id, seq, data) SELECT id, $2, $3 FROM upload RETURNING seq`,
    [importId, seq, data, data.length, UPLOAD_IDLE_MS],
  );
  if (rows.length === 0) throw new ApiError('application_error', 'The upload was abandoned; send the file again.');
}

/** Deletes an upload that will not become an import (its chunks go with it). */
export async function discardUpload(db: Db, importId: string): Promise<void> {
  await db.query(`DELETE FROM contact_imports WHERE id = $1 AND status = 'uploading'`, [importId]);
}

/** Uploads whose request died: not added to for UPLOAD_IDLE_MS. Returns how many went. */
export async function purgeAbandonedUploads(db: Db): Promise<number> {
  const rows = await db.query(`DELETE FROM contact_imports WHERE status = 'uploading' AND lease_until < now() RETURNING id`);
  return rows.length;
}

/** The stored file, chunk by chunk: one chunk in memory at a time. */
export async function* readUpload(q: Queryable, importId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const row = await q.one<{ data: Buffer }>('SELECT data FROM contact_import_chunks WHERE import_id = $1 AND seq = $2', [importId, seq]);
    if (!row) return;
    yield row.data;
  }
}
