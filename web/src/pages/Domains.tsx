// Domains: the account's sending domains (GET /domains), adding one, and a domain's page with
// the DNS records to publish (each value with a copy button and its status), verify now, the
// tracking, TLS and capability settings (PATCH /domains/:id), its DKIM keys with their rotation
// (POST /domains/:id/dkim/rotate, after a confirmation), where it is in its warm-up, and delete
// after a confirmation. Before the settings, what others report of the domain
// (domain-reports.tsx, loaded lazily with its chart): DMARC, TLS reports and DNS blocklists. A
// domain another account holds is claimed instead (domain-claim.tsx): its placeholder is
// marked, with the TXT record to publish and "Verify claim".
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { type Answer, api, type DnsRecord, type Domain, type DomainSummary, type List, type RequestBody } from '../api';
import { ConfirmDialog, CopyButton, ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, ListTable } from '../list-table';
import { follow, navigate } from '../router';
import { ClaimOffer, DomainClaimSection, isHeldElsewhere } from './domain-claim';
import { DomainWarmup } from './domain-warmup';

// The reports draw a chart: they and its library load when a domain is opened, not with the shell.
const DomainReports = lazy(() => import('./domain-reports').then((m) => ({ default: m.DomainReports })));

export function DomainsPage() {
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => api<List<DomainSummary>>('GET', '/domains') });
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
    mutationFn: () => api<Answer<'/domains', 'post'>>('POST', '/domains', { name: name.trim() } satisfies RequestBody<'/domains', 'post'>),
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

/** A DKIM key of the domain (GET /domains/:id `dkim_keys`, newest first; Postline's addition). */
type DkimKey = NonNullable<Domain['dkim_keys']>[number];

const isPending = (k: DkimKey) => k.status === 'pending';

export function DomainPage({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const domain = useQuery({
    queryKey: ['domain', id],
    queryFn: () => api<Domain>('GET', `/domains/${encodeURIComponent(id)}`),
    // A pending key's record is also looked for by Postline every minute: the page follows.
    refetchInterval: (query) => (query.state.data?.dkim_keys?.some(isPending) ? 30_000 : false),
  });
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
      <RecordError what="Domain" query={domain} />
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
          {!d.placeholder && d.dkim_keys && <DkimKeys domain={d} keys={d.dkim_keys} onChanged={refresh} />}
          {d.warmup !== undefined && <DomainWarmup warmup={d.warmup} />}
          {!d.placeholder && (
            <Suspense fallback={<p className="loading">Loading the domain's reports…</p>}>
              <DomainReports domain={d} />
            </Suspense>
          )}
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
      <select id="domain-tls" value={tls} onChange={(e) => setTls(e.target.value as Domain['tls'])}>
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

/**
 * The domain's DKIM keys, each with its TXT record, and "Rotate DKIM key" after a confirmation.
 * While a rotation is under way its key is listed first, with "Verify the new record"; rotating
 * again would only answer the same key, so the button says so instead.
 */
function DkimKeys({ domain, keys, onChanged }: { domain: Domain; keys: DkimKey[]; onChanged: () => Promise<unknown> }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const path = `/domains/${encodeURIComponent(domain.id)}`;
  const rotate = useMutation({
    mutationFn: () => api<Answer<'/domains/{id}/dkim/rotate', 'post'>>('POST', `${path}/dkim/rotate`),
    onSuccess: (rotation) => {
      setAsking(false);
      // The new key at once; the domain read again for its records (the new key's is among them).
      queryClient.setQueryData<Domain>(['domain', domain.id], (d) => d && { ...d, dkim_keys: rotation.keys });
      return onChanged();
    },
    // Said on the page, not behind the dialog.
    onError: () => setAsking(false),
  });
  const verify = useMutation({ mutationFn: () => api('POST', `${path}/verify`), onSuccess: onChanged });
  const pending = keys.find(isPending);
  const active = keys.find((k) => k.status === 'active');
  return (
    <section aria-labelledby="dkim-keys-title">
      <h2 id="dkim-keys-title">DKIM keys</h2>
      <p>
        Mail from {domain.name} is signed with the active key, which receiving servers check against its TXT record. Rotating makes a new key: it signs once its
        record is found, and the key it replaces retires after a while.
      </p>
      <div className="table-wrap">
        <table className="dkim-keys">
          <thead>
            <tr>
              <th scope="col">Selector</th>
              <th scope="col">Key status</th>
              <th scope="col">Name</th>
              <th scope="col">TXT value</th>
              <th scope="col">Record status</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.selector} data-selector={k.selector}>
                <td data-label="Selector">{k.selector}</td>
                <td data-label="Key status">
                  <Status value={k.status} />
                </td>
                <td data-label="Name">
                  <code className="record-name">{k.record.name}</code>
                </td>
                <td data-label="TXT value">
                  <div className="copy-row">
                    <code className="value">{k.record.value}</code>
                    <CopyButton value={k.record.value} label={`Copy TXT value of DKIM key ${k.selector}`} />
                  </div>
                </td>
                <td data-label="Record status">
                  <KeyRecordStatus dkimKey={k} records={domain.records ?? []} />
                </td>
                <td data-label="Time">
                  <KeyTime dkimKey={k} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pending ? (
        <>
          <p className="notice">
            Rotation under way: publish the TXT record of the new key, {pending.selector}, at <code className="record-name">{pending.record.name}</code>, then
            verify it. {active ? `Mail is signed with ${active.selector} until the record is found. ` : ''}Postline also looks for it every minute.
            {pending.record_status === 'failed' && ' Last check: not found yet.'}
            {pending.record_status === 'temporary_failure' && ' Last check: the DNS lookup failed for now; it is tried again.'}
          </p>
          <div className="row">
            <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
              {verify.isPending ? 'Verifying…' : 'Verify the new record'}
            </button>
            <button type="button" className="secondary" disabled>
              Rotation under way
            </button>
          </div>
        </>
      ) : (
        <div className="row">
          <button type="button" onClick={() => setAsking(true)} disabled={rotate.isPending}>
            {rotate.isPending ? 'Rotating…' : 'Rotate DKIM key'}
          </button>
          {verify.isSuccess && !verify.isPending && active && <span role="status">Found: {active.selector} signs mail from now on.</span>}
        </div>
      )}
      <ErrorMessage error={rotate.error ?? verify.error} />
      <ConfirmDialog
        open={asking}
        title={`Rotate the DKIM key of ${domain.name}?`}
        confirm="Rotate key"
        onConfirm={() => rotate.mutate()}
        onClose={() => setAsking(false)}
      >
        {domain.sandboxed ? (
          <p>Postline makes a new key. This domain is sandboxed and publishes nothing, so the new key signs at once and the current one retires.</p>
        ) : (
          <>
            <p>Postline makes a new key, with a new TXT record to publish at your DNS provider.</p>
            <p>
              Mail keeps the current signature{active ? ` (${active.selector})` : ''} until the new record is found, when you verify it or when Postline looks,
              every minute. Then the new key signs.
            </p>
            <p>
              Keep the current key's record published until its retire time, shown here once the new key signs: mail signed with it may still be on its way.
            </p>
          </>
        )}
      </ConfirmDialog>
    </section>
  );
}

/**
 * What is known of a key's record: a pending key's last look-up; the signing key's record is the
 * domain's DKIM record, which "Verify now" looks up; a replaced key's is looked up no more.
 */
function KeyRecordStatus({ dkimKey: k, records }: { dkimKey: DkimKey; records: DnsRecord[] }) {
  if (k.status === 'pending') return <Status value={k.record_status} />;
  if (k.status === 'active') return <Status value={records.find((r) => r.record === 'DKIM' && r.name === k.record.name)?.status ?? k.record_status} />;
  return <span className="hint">not looked up</span>;
}

/** The time that matters for a key in its state: made, signing since, retiring until, retired. */
function KeyTime({ dkimKey: k }: { dkimKey: DkimKey }) {
  switch (k.status) {
    case 'pending':
      return (
        <>
          Created {formatTime(k.created_at)}
          <span className="hint block">Signs once its record is found.</span>
        </>
      );
    case 'active':
      return <>Active since {formatTime(k.activated_at ?? k.created_at)}</>;
    case 'retiring':
      return (
        <>
          Keep its record published until {formatTime(k.retire_at)}
          <span className="hint block">It retires then: mail signed with it may still be on its way.</span>
        </>
      );
    case 'retired':
      return (
        <>
          Retired {formatTime(k.retired_at)}
          <span className="hint block">Its record may be removed.</span>
        </>
      );
  }
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
