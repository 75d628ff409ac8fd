// Domains: the account's sending domains (GET /domains), adding one, and a domain's page with
// the DNS records to publish (each value with a copy button and its status), verify now, the
// tracking, TLS and capability settings (PATCH /domains/:id), where it is in its warm-up, and
// delete after a confirmation. A domain another account holds is claimed instead
// (domain-claim.tsx): its placeholder is marked, with the TXT record to publish and "Verify claim".
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Domain, type List } from '../api';
import { ConfirmDialog, CopyButton, ErrorMessage, formatTime } from '../components';
import { forgetList, ListTable } from '../list-table';
import { follow, navigate } from '../router';
import { ClaimOffer, DomainClaimSection, isHeldElsewhere } from './domain-claim';
import { DomainWarmup } from './domain-warmup';

export function DomainsPage() {
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => api<List<Domain>>('GET', '/domains') });
  return (
    <>
      <h1>Domains</h1>
      <p>Mail is sent from your own domains. Add one, publish the DNS records it shows, then verify it.</p>
      <AddDomain />
      <h2>Your domains</h2>
      <ErrorMessage error={domains.error} />
      {domains.data && domains.data.data.length === 0 && <p>No domains yet: add the one you send from above.</p>}
      {domains.data && domains.data.data.length > 0 && (
        <ListTable
          rows={domains.data.data}
          rowHeaders={false}
          columns={[
            {
              header: 'Domain',
              cell: (d) => (
                <a href={`/dashboard/domains/${d.id}`} onClick={follow(`/domains/${d.id}`)}>
                  {d.name}
                </a>
              ),
            },
            {
              header: 'Status',
              cell: (d) => (
                <>
                  <Status value={d.status} />
                  {d.sandboxed && <Sandboxed />}
                  {d.placeholder && <Claimed />}
                </>
              ),
            },
            { header: 'Region', cell: (d) => d.region },
            { header: 'Added', cell: (d) => formatTime(d.created_at) },
          ]}
        />
      )}
    </>
  );
}

function AddDomain() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [tried, setTried] = useState('');
  const add = useMutation({
    mutationFn: () => api<Domain>('POST', '/domains', { name: name.trim() }),
    onSuccess: (domain) => {
      queryClient.setQueryData(['domain', domain.id], domain);
      void queryClient.invalidateQueries({ queryKey: ['domains'] });
      navigate(`/domains/${domain.id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(name.trim());
    add.mutate();
  };
  return (
    <form className="panel inline" onSubmit={submit} aria-labelledby="add-domain-title">
      <h2 id="add-domain-title">Add a domain</h2>
      <label htmlFor="domain-name">Domain name</label>
      <div className="row">
        <input id="domain-name" required placeholder="example.com" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add domain'}
        </button>
      </div>
      <ErrorMessage error={add.error} />
      {isHeldElsewhere(add.error) && <ClaimOffer key={tried} name={tried} />}
    </form>
  );
}

export function DomainPage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const domain = useQuery({ queryKey: ['domain', id], queryFn: () => api<Domain>('GET', `/domains/${encodeURIComponent(id)}`) });
  const refresh = () => {
    forgetList(queryClient, ['domains']);
    return queryClient.invalidateQueries({ queryKey: ['domain', id] });
  };
  const verify = useMutation({ mutationFn: () => api('POST', `/domains/${encodeURIComponent(id)}/verify`), onSuccess: refresh });
  const d = domain.data;
  return (
    <>
      <p>
        <a href="/dashboard/domains" onClick={follow('/domains')}>
          ← Domains
        </a>
      </p>
      <ErrorMessage error={domain.error} />
      {d && (
        <>
          <h1>{d.name}</h1>
          <p>
            Status: <Status value={d.status} />
            {d.sandboxed && <Sandboxed />}
            {d.placeholder && <Claimed />} · region {d.region}
          </p>
          {d.sandboxed && <p className="notice">This domain was added in sandbox mode: it sends without DNS, and its mail is captured, never delivered.</p>}
          {d.placeholder && <DomainClaimSection domainId={d.id} />}
          <h2>DNS records</h2>
          {d.placeholder ? (
            <p>Once the claim completes, publish these records at your DNS provider and verify them: they carry this account's own DKIM key.</p>
          ) : (
            <p>Publish these records at your DNS provider, then verify: Postline looks each one up and shows what it found.</p>
          )}
          {!d.placeholder && (
            <div className="row">
              <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
                {verify.isPending ? 'Verifying…' : 'Verify now'}
              </button>
              {verify.isSuccess && !verify.isPending && (
                <span role="status">
                  Checked: <Status value={d.status} />
                </span>
              )}
            </div>
          )}
          <ErrorMessage error={verify.error} />
          <div className="table-wrap">
            <table className="records">
              <thead>
                <tr>
                  <th scope="col">Record</th>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                  <th scope="col">Priority</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {[...(d.records ?? []), ...(d.recommended_records ?? [])].map((r) => (
                  <tr key={`${r.record}-${r.type}-${r.name}`}>
                    <td data-label="Record">{r.record}</td>
                    <td data-label="Type">{r.type}</td>
                    <td data-label="Name">
                      <code>{r.name}</code>
                    </td>
                    <td data-label="Value">
                      <div className="copy-row">
                        <code className="value">{r.value}</code>
                        <CopyButton value={r.value} label={`Copy the ${r.record} ${r.type} value`} />
                      </div>
                    </td>
                    <td data-label="Priority">{r.priority ?? ''}</td>
                    <td data-label="Status">
                      <Status value={r.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {d.warmup !== undefined && <DomainWarmup warmup={d.warmup} />}
          <DomainSettings domain={d} onSaved={refresh} />
          <DeleteDomain domain={d} />
        </>
      )}
    </>
  );
}

/** Tracking, TLS and capabilities: the fields PATCH /domains/:id takes, saved together. */
function DomainSettings({ domain, onSaved }: { domain: Domain; onSaved: () => Promise<unknown> }) {
  const [openTracking, setOpenTracking] = useState(domain.open_tracking ?? false);
  const [clickTracking, setClickTracking] = useState(domain.click_tracking ?? false);
  const [tls, setTls] = useState(domain.tls ?? 'opportunistic');
  const [receiving, setReceiving] = useState(domain.capabilities.receiving === 'enabled');
  const save = useMutation({
    mutationFn: () =>
      api('PATCH', `/domains/${encodeURIComponent(domain.id)}`, {
        open_tracking: openTracking,
        click_tracking: clickTracking,
        tls,
        capabilities: { receiving: receiving ? 'enabled' : 'disabled' },
      }),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="domain-settings-title">
      <h2 id="domain-settings-title">Settings</h2>
      <label className="choice">
        <input type="checkbox" checked={openTracking} onChange={(e) => setOpenTracking(e.target.checked)} /> Track opens (a pixel in HTML mail)
      </label>
      <label className="choice">
        <input type="checkbox" checked={clickTracking} onChange={(e) => setClickTracking(e.target.checked)} /> Track clicks (links go through Postline)
      </label>
      <label className="choice">
        <input type="checkbox" checked={receiving} onChange={(e) => setReceiving(e.target.checked)} /> Receive mail at this domain (adds an MX record)
      </label>
      <label htmlFor="domain-tls">TLS to recipients' servers</label>
      <select id="domain-tls" value={tls} onChange={(e) => setTls(e.target.value as 'opportunistic' | 'enforced')}>
        <option value="opportunistic">Opportunistic: encrypt when the server offers it</option>
        <option value="enforced">Enforced: never deliver without TLS</option>
      </select>
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
        {save.isSuccess && !save.isPending && <span role="status">Saved.</span>}
      </div>
      <ErrorMessage error={save.error} />
    </form>
  );
}

function DeleteDomain({ domain }: { domain: Domain }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('DELETE', `/domains/${encodeURIComponent(domain.id)}`),
    onSuccess: async () => {
      setAsking(false);
      queryClient.removeQueries({ queryKey: ['domain', domain.id] });
      forgetList(queryClient, ['domains']);
      navigate('/domains');
    },
  });
  return (
    <section aria-labelledby="delete-domain-title">
      <h2 id="delete-domain-title">Delete</h2>
      <p>{domain.placeholder ? 'Deleting it cancels the claim.' : `Mail from ${domain.name} is refused once the domain is deleted.`}</p>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete {domain.name}
      </button>
      <ErrorMessage error={remove.error} />
      <ConfirmDialog open={asking} title={`Delete ${domain.name}?`} confirm="Delete domain" onConfirm={() => remove.mutate()} onClose={() => setAsking(false)}>
        <p>
          New emails from this domain are refused, and those from it still waiting in the queue may fail: its DKIM key is deleted with it. This cannot be
          undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function Sandboxed() {
  return (
    <span className="status status-sandboxed" title="Added in sandbox mode: sends without DNS, into the catcher">
      sandboxed
    </span>
  );
}

function Claimed() {
  return (
    <span className="status status-claim" title="A claim's placeholder: another account holds the domain until the claim completes">
      claim pending
    </span>
  );
}

function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{value.replaceAll('_', ' ')}</span>;
}
