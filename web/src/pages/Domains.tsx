// Domains: the account's sending domains (GET /domains), adding one, and a domain's page with
// the DNS records to publish, each value with a copy button.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Domain, type List } from '../api';
import { CopyButton, ErrorMessage, formatTime } from '../components';
import { follow, navigate } from '../router';

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
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Region</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {domains.data.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`/dashboard/domains/${d.id}`} onClick={follow(`/domains/${d.id}`)}>
                      {d.name}
                    </a>
                  </td>
                  <td>
                    <Status value={d.status} />
                  </td>
                  <td>{d.region}</td>
                  <td>{formatTime(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function AddDomain() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
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
    </form>
  );
}

export function DomainPage({ id }: { id: string }) {
  const domain = useQuery({ queryKey: ['domain', id], queryFn: () => api<Domain>('GET', `/domains/${encodeURIComponent(id)}`) });
  return (
    <>
      <p>
        <a href="/dashboard/domains" onClick={follow('/domains')}>
          ← Domains
        </a>
      </p>
      <ErrorMessage error={domain.error} />
      {domain.data && (
        <>
          <h1>{domain.data.name}</h1>
          <p>
            Status: <Status value={domain.data.status} /> · region {domain.data.region}
          </p>
          <h2>DNS records</h2>
          <p>Publish these records at your DNS provider. Postline checks them when the domain is verified.</p>
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
                {domain.data.records?.map((r) => (
                  <tr key={`${r.record}-${r.type}-${r.name}`}>
                    <td>{r.record}</td>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.name}</code>
                    </td>
                    <td>
                      <div className="copy-row">
                        <code className="value">{r.value}</code>
                        <CopyButton value={r.value} label={`Copy the ${r.record} ${r.type} value`} />
                      </div>
                    </td>
                    <td>{r.priority ?? ''}</td>
                    <td>
                      <Status value={r.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}

function Status({ value }: { value: string }) {
  return <span className={`status status-${value}`}>{value.replaceAll('_', ' ')}</span>;
}
