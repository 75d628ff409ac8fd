// Templates (src/templates/routes.ts): the list, a new one, and the editor: subject, from,
// HTML and text, variables (key, type, fallback), a live preview, save draft, publish,
// duplicate, delete; leaving with unsaved changes asks first (unsaved-changes.tsx). The preview is rendered by the server (POST /templates/preview, the
// renderer sending uses), so the editor shows exactly what an email would contain.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type Answer, ApiFailure, api, type Item, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, PagedTable, usePagedList } from '../list-table';
import { PreviewFrame } from '../mail-viewer';
import { follow, navigate } from '../router';
import { useUnsavedChanges } from '../unsaved-changes';

type TemplateSummary = Item<'/templates'>;
type Template = Answer<'/templates/{id}'>;
type VariableType = Template['variables'][number]['type'];
type Preview = Answer<'/templates/preview', 'post'>;

/** The editor's copy of a draft: every field as typed; `sample` is the preview's value only. */
interface Draft {
  name: string;
  alias: string;
  subject: string;
  from: string;
  html: string;
  text: string;
  variables: { key: string; type: VariableType; fallback: string; sample: string }[];
}

const templatePath = (id: string) => `/templates/${encodeURIComponent(id)}`;
const PREVIEW_DELAY_MS = 300;

function draftOf(t: Template, samples: Map<string, string> = new Map()): Draft {
  return {
    name: t.name,
    alias: t.alias ?? '',
    subject: t.subject ?? '',
    from: t.from ?? '',
    html: t.html,
    text: t.text ?? '',
    variables: t.variables.map((v) => ({
      key: v.key,
      type: v.type,
      fallback: v.fallback_value === null ? '' : String(v.fallback_value),
      sample: samples.get(v.key) ?? '',
    })),
  };
}

/**
 * A typed value as the API takes it: a number variable's digits as a number; anything else as
 * typed, for the server to judge with the message it gives when sending.
 */
function typedValue(value: string, type: VariableType): string | number {
  return type === 'number' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
}

const orNull = (value: string) => (value.trim() === '' ? null : value);

/** The body of PATCH /templates/:id for a draft. */
function saveBody(d: Draft): RequestBody<'/templates/{id}', 'patch'> {
  return {
    name: d.name,
    alias: orNull(d.alias),
    subject: orNull(d.subject),
    from: orNull(d.from),
    html: d.html,
    text: orNull(d.text),
    variables: d.variables.map((v) => ({ key: v.key, type: v.type, fallback_value: v.fallback === '' ? null : typedValue(v.fallback, v.type) })),
  };
}

function StatusBadge({ status, changed }: { status: TemplateSummary['status']; changed?: boolean }) {
  if (status === 'draft') return <span className="status status-pending">draft</span>;
  return (
    <>
      <span className="status status-verified">published</span>
      {changed && <span className="hint"> · the draft has changes not published yet</span>}
    </>
  );
}

export function TemplatesPage() {
  const list = usePagedList<TemplateSummary>(['templates'], (after) => `/templates?limit=20${after ? `&after=${after}` : ''}`);
  return (
    <>
      <h1>Templates</h1>
      <p>
        Write an email once, with <code>{'{{{VARIABLE}}}'}</code> placeholders, and send it with <code>{'template: {id, variables}'}</code>. Sending uses the
        published version; edits stay a draft until you publish them.
      </p>
      <CreateTemplate />
      <h2>Your templates</h2>
      <PagedTable
        paged={list}
        empty="No templates yet: create one above, then edit and publish it."
        columns={[
          {
            header: 'Name',
            cell: (t) => (
              <a href={`/dashboard/templates/${t.id}`} onClick={follow(`/templates/${t.id}`)}>
                {t.name}
              </a>
            ),
          },
          { header: 'Alias', cell: (t) => (t.alias ? <code>{t.alias}</code> : '—') },
          { header: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
          { header: 'Published', cell: (t) => (t.published_at ? formatTime(t.published_at) : '—') },
          { header: 'Updated', cell: (t) => formatTime(t.updated_at) },
        ]}
      />
    </>
  );
}

function CreateTemplate() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [html, setHtml] = useState('');
  const create = useMutation({
    mutationFn: () => api<Answer<'/templates', 'post'>>('POST', '/templates', { name, html } satisfies RequestBody<'/templates', 'post'>),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: ['templates'] });
      navigate(`/templates/${created.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel wide" onSubmit={submit} aria-labelledby="create-template-title">
      <h2 id="create-template-title">Create a template</h2>
      <label htmlFor="template-name">Name</label>
      <input id="template-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="template-html">HTML</label>
      <textarea id="template-html" className="code" required rows={4} value={html} onChange={(e) => setHtml(e.target.value)} placeholder="<p>Hello</p>" />
      <p className="hint">You can add a subject, a text part and variables in the editor next.</p>
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create and edit'}
      </button>
    </form>
  );
}

export function TemplatePage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const template = useQuery({ queryKey: ['template', id], queryFn: () => api<Template>('GET', templatePath(id)) });
  const [draft, setDraft] = useState<Draft>();
  const [deleting, setDeleting] = useState(false);
  // The editor starts from the saved draft (App.tsx keys this page by id); a save brings it back in step.
  useEffect(() => {
    if (template.data && !draft) setDraft(draftOf(template.data));
  }, [template.data, draft]);
  const saved = template.data;
  const dirty = saved !== undefined && draft !== undefined && JSON.stringify(saveBody(draft)) !== JSON.stringify(saveBody(draftOf(saved)));
  const unsaved = useUnsavedChanges(dirty, 'this template');

  const reload = async (keepSamples: Draft | undefined) => {
    const fresh = await queryClient.fetchQuery({ queryKey: ['template', id], queryFn: () => api<Template>('GET', templatePath(id)) });
    setDraft(draftOf(fresh, new Map(keepSamples?.variables.map((v) => [v.key, v.sample]))));
    forgetList(queryClient, ['templates']);
  };
  const save = useMutation({
    mutationFn: (d: Draft) => api('PATCH', templatePath(id), saveBody(d)),
    onSuccess: (_r, d) => reload(d),
  });
  const publish = useMutation({
    mutationFn: async (d: Draft) => {
      if (dirty) await api('PATCH', templatePath(id), saveBody(d));
      await api('POST', `${templatePath(id)}/publish`);
    },
    onSuccess: (_r, d) => reload(d),
  });
  const duplicate = useMutation({
    mutationFn: async (d: Draft) => {
      if (dirty) await api('PATCH', templatePath(id), saveBody(d));
      return api<Answer<'/templates/{id}/duplicate', 'post'>>('POST', `${templatePath(id)}/duplicate`);
    },
    onSuccess: (copy) => {
      forgetList(queryClient, ['templates']);
      unsaved.release(); // saved before the copy was made
      navigate(`/templates/${copy.id}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => api('DELETE', templatePath(id)),
    onSuccess: async () => {
      forgetList(queryClient, ['templates']);
      unsaved.release(); // nothing left to save
      navigate('/templates');
    },
    onSettled: () => setDeleting(false),
  });

  const busy = save.isPending || publish.isPending || duplicate.isPending;
  // An edit makes a refused save's or publish's message stale.
  const edit = (d: Draft) => {
    setDraft(d);
    save.reset();
    publish.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft) save.mutate(draft);
  };
  return (
    <>
      <p>
        <a href="/dashboard/templates" onClick={follow('/templates')}>
          ← Templates
        </a>
      </p>
      <RecordError what="Template" query={template} />
      {saved && draft && (
        <>
          <h1>{saved.name}</h1>
          <p className="row">
            <StatusBadge status={saved.status} changed={saved.status === 'published' && saved.has_unpublished_versions} />
            {saved.published_at && <span className="hint">Published {formatTime(saved.published_at)}</span>}
            <span className="hint" aria-live="polite">
              {dirty ? 'Unsaved changes' : 'All changes saved'}
            </span>
          </p>
          <form onSubmit={submit} aria-label="Template">
            <div className="row template-actions">
              <button type="submit" disabled={busy || !dirty}>
                Save draft
              </button>
              <button
                type="button"
                onClick={() => publish.mutate(draft)}
                disabled={busy || (!dirty && saved.status === 'published' && !saved.has_unpublished_versions)}
              >
                Publish
              </button>
              <button type="button" className="secondary" onClick={() => duplicate.mutate(draft)} disabled={busy}>
                Duplicate
              </button>
              <button type="button" className="danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            </div>
            <ErrorMessage error={save.error ?? publish.error ?? duplicate.error ?? remove.error} />
            <div className="template-editor">
              <div className="template-fields">
                <Fields draft={draft} onChange={edit} />
                <Variables draft={draft} onChange={edit} />
              </div>
              <LivePreview draft={draft} />
            </div>
          </form>
          <ConfirmDialog
            open={deleting}
            title="Delete this template?"
            confirm="Delete template"
            onConfirm={() => remove.mutate()}
            onClose={() => setDeleting(false)}
          >
            <p>Emails sent with “{saved.name}” keep their content; sending with it from now on is refused. This cannot be undone.</p>
          </ConfirmDialog>
          {unsaved.dialog}
        </>
      )}
    </>
  );
}

function Fields({ draft, onChange }: { draft: Draft; onChange: (d: Draft) => void }) {
  const field = (name: 'name' | 'alias' | 'subject' | 'from' | 'html' | 'text') => ({
    id: `template-${name}`,
    value: draft[name],
    onChange: (e: { target: { value: string } }) => onChange({ ...draft, [name]: e.target.value }),
  });
  return (
    <>
      <label htmlFor="template-name">Name</label>
      <input {...field('name')} required maxLength={255} />
      <label htmlFor="template-alias">Alias (optional)</label>
      <input {...field('alias')} maxLength={100} aria-describedby="alias-hint" />
      <p id="alias-hint" className="hint">
        Another name to send it by, e.g. <code>welcome</code>.
      </p>
      <label htmlFor="template-subject">Subject</label>
      <input {...field('subject')} maxLength={998} />
      <label htmlFor="template-from">From</label>
      <input {...field('from')} placeholder="Name <you@example.com>" />
      <label htmlFor="template-html">HTML</label>
      <textarea {...field('html')} className="code" rows={12} required spellCheck={false} />
      <label htmlFor="template-text">Text</label>
      <textarea {...field('text')} className="code" rows={5} spellCheck={false} aria-describedby="text-hint" />
      <p id="text-hint" className="hint">
        Left empty, a text part is made from the HTML when sending.
      </p>
    </>
  );
}

function Variables({ draft, onChange }: { draft: Draft; onChange: (d: Draft) => void }) {
  const set = (i: number, change: Partial<Draft['variables'][number]>) =>
    onChange({ ...draft, variables: draft.variables.map((v, j) => (j === i ? { ...v, ...change } : v)) });
  return (
    <fieldset className="variables">
      <legend>Variables</legend>
      <p className="hint">
        Use one as <code>{'{{{KEY}}}'}</code> or <code>{'{{{KEY|fallback}}}'}</code>. A sample value only fills the preview.
      </p>
      {draft.variables.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Fallback</th>
                <th scope="col">Sample value</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {draft.variables.map((v, i) => {
                const name = v.key || `variable ${i + 1}`;
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a row is edited in place, its key being one of its fields
                  <tr key={i}>
                    <td>
                      <input aria-label={`Key of ${name}`} className="code" value={v.key} onChange={(e) => set(i, { key: e.target.value })} required />
                    </td>
                    <td>
                      <select aria-label={`Type of ${name}`} value={v.type} onChange={(e) => set(i, { type: e.target.value as VariableType })}>
                        <option value="string">string</option>
                        <option value="number">number</option>
                      </select>
                    </td>
                    <td>
                      <input aria-label={`Fallback of ${name}`} value={v.fallback} onChange={(e) => set(i, { fallback: e.target.value })} />
                    </td>
                    <td>
                      <input aria-label={`Sample value of ${name}`} value={v.sample} onChange={(e) => set(i, { sample: e.target.value })} />
                    </td>
                    <td>
                      <button
                        type="button"
                        className="secondary small"
                        aria-label={`Remove ${name}`}
                        onClick={() => onChange({ ...draft, variables: draft.variables.filter((_v, j) => j !== i) })}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <button
        type="button"
        className="secondary small"
        onClick={() => onChange({ ...draft, variables: [...draft.variables, { key: '', type: 'string', fallback: '', sample: '' }] })}
      >
        Add variable
      </button>
    </fieldset>
  );
}

/** The draft as typed, rendered by the server a moment after the typing stops. */
function LivePreview({ draft }: { draft: Draft }) {
  const body = {
    subject: orNull(draft.subject),
    html: draft.html,
    text: orNull(draft.text),
    variables: saveBody(draft).variables,
    values: Object.fromEntries(draft.variables.filter((v) => v.sample !== '').map((v) => [v.key, typedValue(v.sample, v.type)])),
  };
  const key = JSON.stringify(body);
  const [settled, setSettled] = useState(key);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(key), PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [key]);
  const preview = useQuery({
    queryKey: ['template-preview', settled],
    queryFn: () => api<Preview>('POST', '/templates/preview', JSON.parse(settled)),
    placeholderData: keepPreviousData,
    retry: (count, error) => !(error instanceof ApiFailure && error.status === 422) && count < 2,
  });
  // A draft that does not render (a placeholder being typed) leaves the last preview that did.
  const lastRendered = useRef<Preview>(undefined);
  if (preview.data) lastRendered.current = preview.data;
  const p = preview.data ?? lastRendered.current;
  return (
    <section className="template-preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      {preview.error && (
        <div className="preview-error">
          <ErrorMessage error={preview.error} />
          {p && <p className="hint">Showing the last preview that rendered.</p>}
        </div>
      )}
      {p && (
        <>
          <p>
            <span className="hint">Subject: </span>
            <strong data-testid="preview-subject">{p.subject ?? '(none)'}</strong>
          </p>
          <PreviewFrame html={p.html} title="Preview of the template's HTML" />
          <h3>Text</h3>
          {p.text === null ? <p className="hint">Made from the HTML when sending.</p> : <pre className="mail-text">{p.text}</pre>}
        </>
      )}
    </section>
  );
}
