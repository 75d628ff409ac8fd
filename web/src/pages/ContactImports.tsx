// CSV imports of contacts (src/audience/imports/): the file is uploaded as the SDK uploads it,
// multipart to POST /contacts/imports; the import then runs in the background, and its page
// polls GET /contacts/imports/:id until it is done, showing its counts and the lines it
// refused with their reasons.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type Item, type List } from '../api';
import { ErrorMessage, formatTime } from '../components';
import { ListTable, PagedTable, usePagedList } from '../list-table';
import { follow, navigate } from '../router';
import { qs, type Segment } from './audience-common';

type ContactImport = Item<'/contacts/imports'>;
type ImportDetail = Answer<'/contacts/imports/{id}'>;
type ImportStatus = ImportDetail['status'];

const done = (status: ImportStatus | undefined) => status === 'completed' || status === 'failed';
const STATUS_TEXT: Record<ImportStatus, string> = { queued: 'queued', in_progress: 'in progress', completed: 'done', failed: 'failed' };

function ImportStatusBadge({ status }: { status: ImportStatus }) {
  const tone = status === 'completed' ? 'status-verified' : status === 'failed' ? 'status-failed' : 'status-pending';
  return <span className={`status ${tone}`}>{STATUS_TEXT[status]}</span>;
}

export function ImportsTab() {
  const list = usePagedList<ContactImport>(
    ['contact-imports'],
    (after) => `/contacts/imports${qs({ limit: 25, after })}`,
    (query) =>
      // Refreshed while an import of the page is still running.
      query.state.data?.data.some((i) => !done(i.status)) ? 2000 : false,
  );
  return (
    <>
      <UploadForm />
      <h2>Imports</h2>
      <PagedTable
        paged={list}
        empty="No imports yet: upload a CSV file above."
        columns={[
          {
            header: 'Started',
            cell: (i) => (
              <a href={`/dashboard/audience/imports/${i.id}`} onClick={follow(`/audience/imports/${i.id}`)}>
                {formatTime(i.created_at)}
              </a>
            ),
          },
          { header: 'Status', cell: (i) => <ImportStatusBadge status={i.status} /> },
          { header: 'Rows', cell: (i) => i.counts.total, className: 'number' },
          { header: 'Created', cell: (i) => i.counts.created, className: 'number' },
          { header: 'Updated', cell: (i) => i.counts.updated, className: 'number' },
          { header: 'Skipped', cell: (i) => i.counts.skipped, className: 'number' },
          { header: 'Refused', cell: (i) => i.counts.failed, className: 'number' },
        ]}
      />
    </>
  );
}

function UploadForm() {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [onConflict, setOnConflict] = useState<'skip' | 'upsert'>('skip');
  const [segmentId, setSegmentId] = useState('');
  const segments = useQuery({ queryKey: ['segments', 'all'], queryFn: () => api<List<Segment>>('GET', '/segments?limit=100') });
  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      // Options before the file, though the server takes them in either order.
      form.set('on_conflict', onConflict);
      if (segmentId) form.set('segments', JSON.stringify([segmentId]));
      form.set('file', file!, file!.name);
      return api<Answer<'/contacts/imports', 'post'>>('POST', '/contacts/imports', form);
    },
    onSuccess: ({ id }) => {
      void queryClient.invalidateQueries({ queryKey: ['contact-imports'] });
      navigate(`/audience/imports/${id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file) upload.mutate();
  };
  return (
    <form className="panel stacked" onSubmit={submit} aria-labelledby="import-title">
      <h2 id="import-title">Import contacts from a CSV file</h2>
      <p className="hint" id="import-hint">
        A header row first, with an <code>email</code> column; <code>first_name</code>, <code>last_name</code>, <code>unsubscribed</code> and columns named
        after your properties are read too. At most 50 MB.
      </p>
      <label htmlFor="import-file">CSV file</label>
      <input
        id="import-file"
        type="file"
        accept=".csv,text/csv"
        required
        aria-describedby="import-hint"
        onChange={(e) => setFile(e.target.files?.[0] ?? null)}
      />
      <label htmlFor="import-conflict">Contacts that exist already</label>
      <select id="import-conflict" value={onConflict} onChange={(e) => setOnConflict(e.target.value as 'skip' | 'upsert')}>
        <option value="skip">Leave them as they are</option>
        <option value="upsert">Update them from the file</option>
      </select>
      <label htmlFor="import-segment">Add everyone to a segment (optional)</label>
      <select id="import-segment" value={segmentId} onChange={(e) => setSegmentId(e.target.value)}>
        <option value="">No segment</option>
        {(segments.data?.data ?? []).map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={!file || upload.isPending}>
        {upload.isPending ? 'Uploading…' : 'Import'}
      </button>
      <ErrorMessage error={upload.error} />
    </form>
  );
}

export function ImportPage({ id }: { id: string }) {
  const contactImport = useQuery({
    queryKey: ['contact-import', id],
    queryFn: () => api<ImportDetail>('GET', `/contacts/imports/${encodeURIComponent(id)}`),
    // Polled until the import is done; then it never changes again.
    refetchInterval: (query) => (done(query.state.data?.status) || query.state.error ? false : 1000),
  });
  const i = contactImport.data;
  return (
    <>
      <p>
        <a href="/dashboard/audience/imports" onClick={follow('/audience/imports')}>
          ← Imports
        </a>
      </p>
      <h1>Contact import</h1>
      <ErrorMessage error={contactImport.error} />
      {i && (
        <>
          <p role="status" className="import-progress">
            <ImportStatusBadge status={i.status} /> {i.status === 'queued' && 'Waiting for the import worker…'}
            {i.status === 'in_progress' && `${i.counts.total.toLocaleString()} rows read so far…`}
            {i.status === 'completed' &&
              `Done: ${i.counts.total.toLocaleString()} rows read${i.completed_at ? ` (finished ${formatTime(i.completed_at)})` : ''}.`}
            {i.status === 'failed' && 'The file could not be imported (see below).'}
          </p>
          {!done(i.status) && <progress aria-label="Import progress" />}
          <dl className="facts">
            <dt>Started</dt>
            <dd>{formatTime(i.created_at)}</dd>
            <dt>Rows read</dt>
            <dd>{i.counts.total.toLocaleString()}</dd>
            <dt>Contacts created</dt>
            <dd>{i.counts.created.toLocaleString()}</dd>
            <dt>Contacts updated</dt>
            <dd>{i.counts.updated.toLocaleString()}</dd>
            <dt>Left as they were</dt>
            <dd>{i.counts.skipped.toLocaleString()}</dd>
            <dt>Lines refused</dt>
            <dd>{i.counts.failed.toLocaleString()}</dd>
          </dl>
          {i.errors.length > 0 && (
            <>
              <h2>Refused lines</h2>
              {i.counts.failed > i.errors.length && (
                <p className="hint">
                  The first {i.errors.length} of {i.counts.failed.toLocaleString()}.
                </p>
              )}
              <ListTable
                rows={i.errors}
                rowHeaders={false}
                rowKey={(_, n) => n /* a fixed list in file order; a line may carry two */}
                columns={[
                  { header: 'Line', cell: (e) => e.line ?? '—', className: 'number' },
                  { header: 'Reason', cell: (e) => e.message },
                ]}
              />
            </>
          )}
          {done(i.status) && (
            <p>
              <a href="/dashboard/audience" onClick={follow('/audience')}>
                See the contacts
              </a>
            </p>
          )}
        </>
      )}
    </>
  );
}
