// Suppressions (/suppressions, src/suppressions/): the addresses Postline will not send to, and
// why (a hard bounce, a complaint, or added by hand), filtered by that reason or looked up by
// address; add one, remove one after a confirmation.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type Item, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime } from '../components';
import { type Column, ListTable, PagedTable, usePagedList } from '../list-table';

type Suppression = Item<'/suppressions'>;
type Origin = Suppression['origin'];

/** Every origin the API has, in the filter's order, with how the page says it. */
const REASONS: Record<Origin, string> = {
  bounce: 'Hard bounce',
  complaint: 'Complaint (marked as spam)',
  manual: 'Added by hand',
};
const ORIGINS = Object.keys(REASONS) as Origin[];

export function SuppressionsPage() {
  const [origin, setOrigin] = useState<Origin | ''>('');
  const [found, setFound] = useState<{ address: string; entry: Suppression | null }>();
  const [removing, setRemoving] = useState<Suppression>();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (s: Suppression) => api('DELETE', `/suppressions/${s.id}`),
    onSuccess: (_, s) => {
      if (found?.entry?.id === s.id) setFound({ address: found.address, entry: null });
      void queryClient.invalidateQueries({ queryKey: ['suppressions'] });
    },
  });
  return (
    <>
      <h1>Suppressions</h1>
      <p>
        Postline sends nothing to these addresses: an email to one of them is recorded as suppressed and never attempted. Remove an address to send to it again.
      </p>
      <AddSuppression />
      <FindSuppression onFound={setFound} />
      {found && (
        <div className="panel spaced" aria-live="polite">
          {found.entry ? (
            <SuppressionTable rows={[found.entry]} onRemove={setRemoving} caption={`Found ${found.address}`} />
          ) : (
            <p>
              <strong>{found.address}</strong> is not suppressed.
            </p>
          )}
        </div>
      )}
      <h2>Suppressed addresses</h2>
      <div className="row inline-filter">
        <label htmlFor="suppression-origin">Reason</label>
        <select id="suppression-origin" value={origin} onChange={(e) => setOrigin(e.target.value as Origin | '')}>
          <option value="">Any reason</option>
          {ORIGINS.map((o) => (
            <option key={o} value={o}>
              {REASONS[o]}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={remove.error} />
      {/* Keyed by the filter: another reason starts again at the first page. */}
      <SuppressionList key={origin} origin={origin} onRemove={setRemoving} />
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove ${removing?.email ?? ''}?`}
        confirm="Remove"
        onConfirm={() => {
          if (removing) remove.mutate(removing);
          setRemoving(undefined);
        }}
        onClose={() => setRemoving(undefined)}
      >
        <p>
          Postline will send to this address again.
          {removing?.origin !== 'manual' && ' It was suppressed because mail to it failed or was reported as spam: sending again may hurt your reputation.'}
        </p>
      </ConfirmDialog>
    </>
  );
}

function SuppressionList({ origin, onRemove }: { origin: Origin | ''; onRemove: (s: Suppression) => void }) {
  const list = usePagedList<Suppression>(
    ['suppressions', origin],
    (after) => `/suppressions?limit=50${origin ? `&origin=${origin}` : ''}${after ? `&after=${after}` : ''}`,
  );
  return (
    <PagedTable
      paged={list}
      columns={suppressionColumns(onRemove)}
      empty={
        origin
          ? 'No address is suppressed for this reason.'
          : 'No address is suppressed. Hard bounces and complaints add addresses here by themselves; add one above to stop mail to it.'
      }
    />
  );
}

function SuppressionTable({ rows, onRemove, caption }: { rows: Suppression[]; onRemove: (s: Suppression) => void; caption?: string }) {
  return <ListTable rows={rows} columns={suppressionColumns(onRemove)} caption={caption} />;
}

const suppressionColumns = (onRemove: (s: Suppression) => void): Column<Suppression>[] => [
  { header: 'Address', cell: (s) => s.email },
  {
    header: 'Reason',
    cell: (s) => (
      <>
        {REASONS[s.origin] ?? s.origin}
        {s.source_id && <span className="hint block">email {s.source_id}</span>}
      </>
    ),
  },
  { header: 'Since', cell: (s) => formatTime(s.created_at) },
  {
    header: 'Actions',
    hideHeader: true,
    cell: (s) => (
      <button type="button" className="danger small" onClick={() => onRemove(s)} aria-label={`Remove ${s.email}`}>
        Remove
      </button>
    ),
  },
];

function AddSuppression() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [added, setAdded] = useState<string>();
  const add = useMutation({
    mutationFn: (address: string) => api('POST', '/suppressions', { email: address } satisfies RequestBody<'/suppressions', 'post'>),
    onSuccess: (_, address) => {
      setAdded(address);
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: ['suppressions'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(undefined);
    add.mutate(email.trim());
  };
  return (
    <form className="panel spaced" onSubmit={submit} aria-labelledby="add-suppression-title">
      <h2 id="add-suppression-title">Suppress an address</h2>
      <p className="hint">Its reason is recorded as “added by hand”; bounces and complaints are added by Postline itself.</p>
      <label htmlFor="suppression-email">Address</label>
      <div className="row">
        <input id="suppression-email" type="email" required placeholder="someone@example.com" value={email} onChange={(e) => setEmail(e.target.value)} />
        <button type="submit" disabled={add.isPending}>
          Suppress
        </button>
      </div>
      <ErrorMessage error={add.error} />
      {added && (
        <p role="status" className="hint">
          {added} is suppressed.
        </p>
      )}
    </form>
  );
}

/**
 * Looks one address up: the list filtered to it (GET /suppressions?email=), which answers "not
 * suppressed" as an empty list, where GET /suppressions/:address answers a 404 the browser logs.
 */
function FindSuppression({ onFound }: { onFound: (found: { address: string; entry: Suppression | null } | undefined) => void }) {
  const [address, setAddress] = useState('');
  const find = useMutation({
    mutationFn: async (value: string) => {
      return (await api<Answer<'/suppressions'>>('GET', `/suppressions?email=${encodeURIComponent(value)}&limit=1`)).data[0] ?? null;
    },
    onSuccess: (entry, value) => onFound({ address: value, entry }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onFound(undefined);
    find.mutate(address.trim().toLowerCase());
  };
  return (
    <form className="panel spaced" onSubmit={submit} aria-labelledby="find-suppression-title">
      <h2 id="find-suppression-title">Is an address suppressed?</h2>
      <label htmlFor="suppression-find">Address</label>
      <div className="row">
        <input id="suppression-find" type="email" required placeholder="someone@example.com" value={address} onChange={(e) => setAddress(e.target.value)} />
        <button type="submit" className="secondary" disabled={find.isPending}>
          Look up
        </button>
      </div>
      <ErrorMessage error={find.error} />
    </form>
  );
}
