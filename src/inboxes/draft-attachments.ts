// Files on drafts (the SDK's InboxDraftAttachmentOptions): given as on POST /emails — `content`
// (base64) or a `path` URL, with a `filename` — and stored with the draft, a `path` downloaded
// when the draft is written (through the same SSRF-safe fetch as the accept pipeline), so the
// draft holds bytes only. A draft's files total at most 25 MB (Resend's limit); an empty file
// or a path that cannot be downloaded is refused with 422. Sending the draft hands them to the
// accept pipeline as `content`, so they go out exactly as stored.
import crypto from 'node:crypto';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import { ApiError, validation } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { type AttachmentBody, type AttachmentRequest, attachmentRequests } from '../emails/attachments.js';
import { type FetchPolicy, fetchAttachment } from '../emails/fetch-attachment.js';

const MAX_DRAFT_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_DRAFT_ATTACHMENT_SIZE = '25 MB';

export interface DraftFile {
  filename: string;
  contentType: string;
  contentId: string | null;
  content: Buffer;
}

/** The SDK's InboxDraftAttachment. */
export interface DraftAttachmentView {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

const invalid = (message: string) => new ApiError('invalid_attachment', message);

/**
 * The files of a body that passed its schema (each named: outgoing-fields.ts), their content
 * decoded and judged before any download is made; null, absent or []: no files.
 */
export function parseDraftAttachments(value: AttachmentBody[] | null | undefined): AttachmentRequest[] {
  const requests = attachmentRequests(value ?? undefined) ?? [];
  for (const [i, request] of requests.entries()) {
    if (request.content && request.content.length === 0) throw invalid(`The file at \`attachments[${i}]\` is empty.`);
  }
  const given = requests.reduce((sum, a) => sum + (a.content?.length ?? 0), 0);
  if (given > MAX_DRAFT_ATTACHMENT_BYTES) throw tooLarge();
  return requests;
}

/** Downloads every `path` (each within the room the draft has left) and settles the types. */
export async function loadDraftAttachments(requests: AttachmentRequest[], policy: FetchPolicy): Promise<DraftFile[]> {
  let used = requests.reduce((sum, a) => sum + (a.content?.length ?? 0), 0);
  const files: DraftFile[] = [];
  for (const [i, request] of requests.entries()) {
    let content = request.content;
    let fetchedType: string | undefined;
    if (!content) {
      const fetched = await fetchAttachment(request.path!, MAX_DRAFT_ATTACHMENT_BYTES - used, policy, `attachments[${i}].path`);
      if (fetched.content.length === 0) throw invalid(`The file at \`attachments[${i}].path\` is empty.`);
      content = fetched.content;
      fetchedType = fetched.contentType;
      used += content.length;
    }
    const filename = request.filename!;
    const byName = filename.includes('.') ? mimeFuncs.detectMimeType(filename) : 'application/octet-stream';
    const contentType = request.contentType ?? (byName === 'application/octet-stream' && fetchedType ? fetchedType : byName);
    files.push({ filename, contentType, contentId: request.contentId, content });
  }
  return files;
}

function tooLarge(): ApiError {
  return validation(`The files on a draft can total at most ${MAX_DRAFT_ATTACHMENT_SIZE}.`);
}

/** Replaces the draft's files with `files` (in the draft's transaction). */
export async function storeDraftAttachments(q: Queryable, draftId: string, files: DraftFile[]): Promise<void> {
  await q.query('DELETE FROM inbox_draft_attachments WHERE draft_id = $1', [draftId]);
  if (files.length === 0) return;
  await q.query(
    `INSERT INTO inbox_draft_attachments (id, draft_id, position, filename, content_type, content_id, content, size)
     SELECT id, $2, position - 1, filename, content_type, content_id, content, octet_length(content)
       FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::bytea[]) WITH ORDINALITY
            AS f(id, filename, content_type, content_id, content, position)`,
    [
      files.map(() => crypto.randomUUID()),
      draftId,
      files.map((f) => f.filename),
      files.map((f) => f.contentType),
      files.map((f) => f.contentId),
      files.map((f) => f.content),
    ],
  );
}

interface DraftAttachmentViewRow extends DraftAttachmentView {
  draft_id: string;
}

interface DraftAttachmentToSendRow {
  filename: string;
  content_type: string;
  content_id: string | null;
  content: Buffer;
}

/** The files of each draft, in order, as the SDK's InboxDraftAttachment (no bytes read). */
export async function draftAttachmentViews(q: Queryable, draftIds: string[]): Promise<Map<string, DraftAttachmentView[]>> {
  const byDraft = new Map<string, DraftAttachmentView[]>(draftIds.map((id) => [id, []]));
  if (draftIds.length === 0) return byDraft;
  const rows = await q.query<DraftAttachmentViewRow>(
    'SELECT id, draft_id, filename, content_type, size FROM inbox_draft_attachments WHERE draft_id = ANY($1::uuid[]) ORDER BY draft_id, position',
    [draftIds],
  );
  for (const r of rows) {
    byDraft.get(r.draft_id)?.push({ id: r.id, filename: r.filename, content_type: r.content_type, size: r.size });
  }
  return byDraft;
}

/** The draft's files as POST /emails attachments, for the accept pipeline. */
export async function draftAttachmentsToSend(q: Queryable, draftId: string) {
  const rows = await q.query<DraftAttachmentToSendRow>(
    'SELECT filename, content_type, content_id, content FROM inbox_draft_attachments WHERE draft_id = $1 ORDER BY position',
    [draftId],
  );
  return rows.map((r) => ({
    filename: r.filename,
    content_type: r.content_type,
    ...(r.content_id ? { content_id: r.content_id } : {}),
    content: r.content.toString('base64'),
  }));
}
