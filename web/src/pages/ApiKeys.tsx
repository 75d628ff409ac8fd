// API keys: the account's keys (GET /api-keys), a new one (full or sending access, optionally
// one domain) whose token is shown once, and deletion after a confirmation; below them the
// OAuth grants given to third-party apps (oauth-grants.tsx).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { type Answer, type ApiKey, api, type DomainSummary, type List, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, ShownOnceToken } from '../components';
import { ListTable } from '../list-table';

// Loaded with the page's first paint done: the shell stays small (issue 16: ≤ 300 KB).
const OAuthGrantsSection = lazy(() => import('./oauth-grants').then((m) => ({ default: m.OAuthGrantsSection })));

export function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<List<ApiKey>>('GET', '/api-keys') });
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [deleting, setDeleting] = useState<ApiKey>();
  const remove = useMutation({
    mutationFn: (id: string) => api('DELETE', `/api-keys/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
    onSettled: () => setDeleting(undefined),
  });
  return (
    <>
      <h1>API keys</h1>
      <p>Keys let your code send with Postline through its API or SMTP. A key is shown once, when it is created.</p>
      <CreateKey onCreated={setCreated} />
      {created && (
        <ShownOnceToken
          heading="h2"
          title={`Your new key “${created.name}”`}
          token={created.token}
          testId="new-token"
          copyLabel="Copy the new API key"
          onDone={() => setCreated(undefined)}
        />
      )}
      <h2>Keys</h2>
      <ErrorMessage error={keys.error ?? remove.error} />
      {keys.data && keys.data.data.length === 0 && <p>No keys yet: create one above.</p>}
      {keys.data && keys.data.data.length > 0 && (
        <ListTable
          rows={keys.data.data}
          rowHeaders={false}
          columns={[
            { header: 'Name', cell: (key) => key.name || '(no name)' },
            { header: 'Created', cell: (key) => formatTime(key.created_at) },
            { header: 'Last used', cell: (key) => formatTime(key.last_used_at) },
            {
              header: 'Actions',
              hideHeader: true,
              cell: (key) => (
                <button type="button" className="danger small" onClick={() => setDeleting(key)} aria-label={`Delete the key ${key.name}`}>
                  Delete
                </button>
              ),
            },
          ]}
        />
      )}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this key?"
        confirm="Delete key"
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onClose={() => setDeleting(undefined)}
      >
        <p>Anything using “{deleting?.name}” will be refused from now on. This cannot be undone.</p>
      </ConfirmDialog>
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <OAuthGrantsSection />
      </Suspense>
    </>
  );
}

type Permission = NonNullable<RequestBody<'/api-keys', 'post'>['permission']>;

function CreateKey({ onCreated }: { onCreated: (key: { name: string; token: string }) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<Permission>('full_access');
  const [domainId, setDomainId] = useState('');
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => api<List<DomainSummary>>('GET', '/domains'), enabled: permission === 'sending_access' });
  const create = useMutation({
    mutationFn: () =>
      api<Answer<'/api-keys', 'post'>>('POST', '/api-keys', {
        name,
        permission,
        ...(permission === 'sending_access' && domainId ? { domain_id: domainId } : {}),
      } satisfies RequestBody<'/api-keys', 'post'>),
    onSuccess: (key) => {
      onCreated({ name, token: key.token });
      setName('');
      return queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <label htmlFor="key-name">Name</label>
      <input id="key-name" required maxLength={50} value={name} onChange={(e) => setName(e.target.value)} />
      <fieldset>
        <legend>Permission</legend>
        <label className="choice">
          <input type="radio" name="permission" checked={permission === 'full_access'} onChange={() => setPermission('full_access')} />
          Full access: everything the API does
        </label>
        <label className="choice">
          <input type="radio" name="permission" checked={permission === 'sending_access'} onChange={() => setPermission('sending_access')} />
          Sending access: only sends email
        </label>
      </fieldset>
      {permission === 'sending_access' && (
        <>
          <label htmlFor="key-domain">Domain</label>
          <select id="key-domain" value={domainId} onChange={(e) => setDomainId(e.target.value)}>
            <option value="">Any domain</option>
            {domains.data?.data.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </>
      )}
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}
