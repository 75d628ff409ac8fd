// Request logs (GET /logs, src/logs/request-logs.ts): every request made with an API key and
// every change a dashboard user made (who, what, when), filtered by status (a code or a class),
// path prefix, key and source, page by page; a log's page shows the request and response bodies
// as Postline stored them (secrets redacted).
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, type ApiKey, api, type Item, type List } from '../api';
import { formatTime, RecordError } from '../components';
import { PagedTable, usePagedList } from '../list-table';
import { follow } from '../router';

type LogSummary = Item<'/logs'>;
type Log = Answer<'/logs/{id}'>;
interface Filters {
  status: string;
  endpoint: string;
  apiKeyId: string;
  source: '' | 'api' | 'dashboard';
}

const NO_FILTERS: Filters = { status: '', endpoint: '', apiKeyId: '', source: '' };

function logsPath(filters: Filters, after: string | undefined): string {
  const query = new URLSearchParams({ limit: '50' });
  if (filters.status) query.set('status', filters.status);
  if (filters.endpoint) query.set('endpoint', filters.endpoint);
  if (filters.apiKeyId) query.set('api_key_id', filters.apiKeyId);
  if (filters.source) query.set('source', filters.source);
  if (after) query.set('after', after);
  return `/logs?${query}`;
}

export function LogsPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  return (
    <>
      <h1>Logs</h1>
      <p>
        Every request made to the API with a key, and every change made in the dashboard with who made it, newest first, kept for the retention period. Open one
        to see its bodies.
      </p>
      <LogFilters initial={filters} onApply={setFilters} />
      {/* Keyed by the filters: new filters start again at the first page. */}
      <LogList key={JSON.stringify(filters)} filters={filters} />
    </>
  );
}

function LogList({ filters }: { filters: Filters }) {
  const logs = usePagedList<LogSummary>(['logs', filters], (after) => logsPath(filters, after));
  const filtered = Boolean(filters.status || filters.endpoint || filters.apiKeyId || filters.source);
  return (
    <PagedTable
      paged={logs}
      empty={
        filtered
          ? 'No request matches these filters: widen them or clear them.'
          : 'No API requests yet: call the API with one of your keys and it appears here.'
      }
      columns={[
        {
          header: 'Request',
          cell: (l) => (
            <a href={`/dashboard/logs/${l.id}`} onClick={follow(`/logs/${l.id}`)}>
              <code>{l.method}</code> {l.endpoint}
            </a>
          ),
        },
        { header: 'Status', cell: (l) => <HttpStatus value={l.response_status} /> },
        { header: 'When', cell: (l) => formatTime(l.created_at) },
        { header: 'By', cell: (l) => <By log={l} /> },
        { header: 'Client', cell: (l) => l.user_agent ?? '—', className: 'hint' },
      ]}
    />
  );
}

function LogFilters({ initial, onApply }: { initial: Filters; onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState(initial);
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api<List<ApiKey>>('GET', '/api-keys') });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ status: draft.status.trim().toLowerCase(), endpoint: draft.endpoint.trim(), apiKeyId: draft.apiKeyId, source: draft.source });
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    onApply(NO_FILTERS);
  };
  return (
    <form className="panel filters" onSubmit={submit} aria-label="Filter the logs">
      <div>
        <label htmlFor="log-status">Status</label>
        <input
          id="log-status"
          list="log-status-classes"
          placeholder="422 or 4xx"
          pattern="[1-5]([0-9]{2}|[xX]{2})"
          title="A status code such as 422, or a class such as 4xx"
          value={draft.status}
          onChange={(e) => setDraft({ ...draft, status: e.target.value })}
        />
        <datalist id="log-status-classes">
          <option value="2xx">Successes</option>
          <option value="4xx">Client errors</option>
          <option value="5xx">Server errors</option>
        </datalist>
      </div>
      <div>
        <label htmlFor="log-endpoint">Path starts with</label>
        <input
          id="log-endpoint"
          placeholder="/emails"
          maxLength={500}
          value={draft.endpoint}
          onChange={(e) => setDraft({ ...draft, endpoint: e.target.value })}
        />
      </div>
      <div>
        <label htmlFor="log-key">API key</label>
        <select id="log-key" value={draft.apiKeyId} onChange={(e) => setDraft({ ...draft, apiKeyId: e.target.value })}>
          <option value="">Any key</option>
          {keys.data?.data.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="log-source">Made from</label>
        <select id="log-source" value={draft.source} onChange={(e) => setDraft({ ...draft, source: e.target.value as Filters['source'] })}>
          <option value="">The API and the dashboard</option>
          <option value="api">The API (a key)</option>
          <option value="dashboard">The dashboard (a user)</option>
        </select>
      </div>
      <div className="filter-actions">
        <button type="submit">Filter</button>
        <button type="button" className="secondary" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}

/** Who made a request: a dashboard user, or a key (the list does not say which). */
function By({ log }: { log: Pick<LogSummary, 'user'> }) {
  if (!log.user) return <span className="hint">API key</span>;
  return <span>{log.user.email ?? 'a deleted user'} (dashboard)</span>;
}

function HttpStatus({ value }: { value: number }) {
  const kind = value < 300 ? 'status-verified' : value < 500 ? 'status-pending' : 'status-failed';
  return <span className={`status ${kind}`}>{value}</span>;
}

export function LogPage({ id }: { id: string }) {
  const log = useQuery({ queryKey: ['log', id], queryFn: () => api<Log>('GET', `/logs/${encodeURIComponent(id)}`) });
  const l = log.data;
  return (
    <>
      <p>
        <a href="/dashboard/logs" onClick={follow('/logs')}>
          ← Logs
        </a>
      </p>
      <RecordError what="Log" query={log} />
      {l && (
        <>
          <h1>
            <code>{l.method}</code> {l.endpoint}
          </h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <HttpStatus value={l.response_status} />
            </dd>
            <dt>When</dt>
            <dd>{formatTime(l.created_at)}</dd>
            <dt>By</dt>
            <dd>
              <By log={l} />
            </dd>
            <dt>Client</dt>
            <dd>{l.user_agent ?? '—'}</dd>
          </dl>
          <h2>Request body</h2>
          <Body value={l.request_body} label="Request body" />
          <h2>Response body</h2>
          <Body value={l.response_body} label="Response body" />
        </>
      )}
    </>
  );
}

/** A stored body as JSON, indented; a large one was stored only as its size. */
function Body({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined) return <p className="hint">No body.</p>;
  const truncated = typeof value === 'object' && (value as { truncated?: unknown }).truncated === true;
  return (
    <>
      {truncated && <p className="hint">This body was too large to keep; only its size was stored.</p>}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard */}
      <section className="json" tabIndex={0} aria-label={label}>
        <pre>{JSON.stringify(value, null, 2)}</pre>
      </section>
    </>
  );
}
