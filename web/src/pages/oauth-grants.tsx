// OAuth grants (src/accounts/oauth-grants.ts), on the API keys page: API access given to a named
// third-party app (GET /oauth/grants, revoked ones included), a new one issued with its token
// shown once (POST /oauth/grants, Postline's addition: no OAuth consent screen runs here), and
// revocation after a confirmation (DELETE /oauth/grants/:id). A grant keeps no "last used" of its
// own: its id stands as `api_key_id` in the request logs, so its newest logged request
// (GET /logs?api_key_id=…&limit=1) says when it was last used on the API.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type DomainSummary, type Item, type List, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, ShownOnceToken } from '../components';
import { ListTable } from '../list-table';

type OAuthGrant = Item<'/oauth/grants'>;
type Scope = OAuthGrant['scopes'][number];

const SCOPE_NAMES: Record<Scope, string> = { full_access: 'Full access', 'emails:send': 'Sending only' };

export function OAuthGrantsSection() {
  const queryClient = useQueryClient();
  const grants = useQuery({ queryKey: ['oauth-grants'], queryFn: () => api<List<OAuthGrant>>('GET', '/oauth/grants?limit=100') });
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => api<List<DomainSummary>>('GET', '/domains') });
  const [issued, setIssued] = useState<{ name: string; token: string }>();
  const [revoking, setRevoking] = useState<OAuthGrant>();
  const revoke = useMutation({
    mutationFn: (id: string) => api('DELETE', `/oauth/grants/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['oauth-grants'] }),
    onSettled: () => setRevoking(undefined),
  });
  const domainName = (id: string | null) => (id === null ? 'Any' : (domains.data?.data.find((d) => d.id === id)?.name ?? id));
  return (
    <section aria-labelledby="oauth-grants-title">
      <h2 id="oauth-grants-title">OAuth grants</h2>
      <p>API access given to a third-party app. Its token is shown once, when issued, to hand to the app; revoking it refuses the token at once.</p>
      <IssueGrant domains={domains.data?.data ?? []} onIssued={setIssued} />
      {issued && (
        <ShownOnceToken
          heading="h3"
          title={`The token for “${issued.name}”`}
          token={issued.token}
          testId="new-grant-token"
          copyLabel="Copy the new grant's token"
          onDone={() => setIssued(undefined)}
        />
      )}
      <h3>Grants</h3>
      <ErrorMessage error={grants.error ?? revoke.error} />
      {grants.data && grants.data.data.length === 0 && <p>No app has been given access.</p>}
      {grants.data && grants.data.data.length > 0 && (
        <ListTable
          rows={grants.data.data}
          rowHeaders={false}
          caption="OAuth grants"
          columns={[
            { header: 'App', cell: (g) => g.client.name },
            { header: 'Scope', cell: (g) => g.scopes.map((s) => SCOPE_NAMES[s]).join(', ') },
            { header: 'Domain', cell: (g) => domainName(g.domain_id) },
            { header: 'Created', cell: (g) => formatTime(g.created_at) },
            { header: 'Last used', cell: (g) => <LastUsed grantId={g.id} /> },
            {
              header: 'Actions',
              hideHeader: true,
              cell: (g) =>
                g.revoked_at ? (
                  <span className="hint">Revoked {formatTime(g.revoked_at)}</span>
                ) : (
                  <button type="button" className="danger small" onClick={() => setRevoking(g)} aria-label={`Revoke the grant of ${g.client.name}`}>
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      )}
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke this grant?"
        confirm="Revoke grant"
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onClose={() => setRevoking(undefined)}
      >
        <p>“{revoking?.client.name}” will be refused from now on, on the API and over SMTP. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The grant's newest request in the logs (its id is their `api_key_id`): the API only, SMTP submissions are not logged. */
function LastUsed({ grantId }: { grantId: string }) {
  const last = useQuery({
    queryKey: ['oauth-grant-last-used', grantId],
    queryFn: () => api<List<Item<'/logs'>>>('GET', `/logs?api_key_id=${grantId}&limit=1`),
  });
  if (!last.data) return null;
  return <>{formatTime(last.data.data[0]?.created_at ?? null)}</>;
}

function IssueGrant({ domains, onIssued }: { domains: DomainSummary[]; onIssued: (grant: { name: string; token: string }) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('emails:send');
  const [domainId, setDomainId] = useState('');
  const issue = useMutation({
    mutationFn: () =>
      api<Answer<'/oauth/grants', 'post'>>('POST', '/oauth/grants', {
        client: { name: name.trim() },
        scopes: [scope],
        ...(scope === 'emails:send' && domainId ? { domain_id: domainId } : {}),
      } satisfies RequestBody<'/oauth/grants', 'post'>),
    onSuccess: (grant) => {
      onIssued({ name: name.trim(), token: grant.token });
      setName('');
      return queryClient.invalidateQueries({ queryKey: ['oauth-grants'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="issue-grant-title">
      <h3 id="issue-grant-title">Give an app access</h3>
      <label htmlFor="grant-app">Application</label>
      <input id="grant-app" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <fieldset>
        <legend>Scope</legend>
        <label className="choice">
          <input type="radio" name="grant-scope" checked={scope === 'emails:send'} onChange={() => setScope('emails:send')} />
          Sending only (emails:send)
        </label>
        <label className="choice">
          <input type="radio" name="grant-scope" checked={scope === 'full_access'} onChange={() => setScope('full_access')} />
          All of the API (full_access)
        </label>
      </fieldset>
      {scope === 'emails:send' && (
        <>
          <label htmlFor="grant-domain">Domain</label>
          <select id="grant-domain" className="block" value={domainId} onChange={(e) => setDomainId(e.target.value)}>
            <option value="">Any domain</option>
            {domains.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </>
      )}
      <ErrorMessage error={issue.error} />
      <button type="submit" disabled={issue.isPending}>
        {issue.isPending ? 'Issuing…' : 'Issue grant'}
      </button>
    </form>
  );
}
