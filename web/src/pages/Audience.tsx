// The audience (src/audience/): contacts (searched by address or name), a contact's page (its
// properties, topics with their subscription, segments, unsubscribe state; edit, delete), and
// the tabs for segments, topics, properties and CSV imports (AudienceLists.tsx,
// ContactImports.tsx). Every read and change is the API's own route.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { type Answer, api, type Item, type List, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError, SearchBox } from '../components';
import { forgetList, PagedTable, PagedView, usePagedList } from '../list-table';
import { follow, navigate } from '../router';
import { ContactActivity } from './contact-activity';
import { AudienceTabs, type ContactSummary, fullName, qs, type Segment } from './audience-common';
import { PropertiesTab, SegmentPage, SegmentsTab, TopicsTab } from './AudienceLists';
import { ImportPage, ImportsTab } from './ContactImports';

type Contact = Answer<'/contacts/{contact}'>;
type Property = Item<'/contact-properties'>;
type PropertyValue = Property['fallback_value'];
type ContactTopic = Item<'/contacts/{contact}/topics'>;

/** /audience and everything below it. */
export function AudiencePage({ path }: { path: string }) {
  const [, , section, id] = path.split('/');
  const tabbed = (page: ReactNode) => (
    <>
      <h1>Audience</h1>
      <AudienceTabs path={path} />
      {page}
    </>
  );
  if (section === 'contacts' && id) return <ContactPage contactKey={decodeURIComponent(id)} />;
  if (section === 'segments' && id) return <SegmentPage id={decodeURIComponent(id)} />;
  if (section === 'imports' && id) return <ImportPage id={decodeURIComponent(id)} />;
  if (section === 'segments') return tabbed(<SegmentsTab />);
  if (section === 'topics') return tabbed(<TopicsTab />);
  if (section === 'properties') return tabbed(<PropertiesTab />);
  if (section === 'imports') return tabbed(<ImportsTab />);
  if (section === undefined) return tabbed(<ContactsTab />);
  return (
    <>
      <h1>Not found</h1>
      <p>There is no page at this address.</p>
    </>
  );
}

function ContactsTab() {
  const [search, setSearch] = useState('');
  return (
    <>
      <SearchBox id="contact-search" label="Search contacts by address or name" placeholder="Search by address or name" search={search} onSearch={setSearch} />
      {/* Keyed by the search, so a new search starts again at page 1. */}
      <ContactList key={search} search={search} />
      <AddContact />
    </>
  );
}

function ContactList({ search }: { search: string }) {
  const list = usePagedList<ContactSummary>(['contacts', search], (after) => `/contacts${qs({ search, limit: 25, after })}`);
  return (
    <PagedTable
      paged={list}
      caption={search ? `Contacts matching ${search}` : 'Contacts'}
      empty={search ? `No contact's address or name holds “${search}”.` : 'No contacts yet: add one below, or import a CSV file from the Imports tab.'}
      columns={[
        {
          header: 'Address',
          cell: (c) => (
            <a href={`/dashboard/audience/contacts/${c.id}`} onClick={follow(`/audience/contacts/${c.id}`)}>
              {c.email}
            </a>
          ),
        },
        { header: 'Name', cell: (c) => fullName(c) || '—' },
        { header: 'Mail', cell: (c) => <Subscribed unsubscribed={c.unsubscribed} /> },
        { header: 'Added', cell: (c) => formatTime(c.created_at) },
      ]}
    />
  );
}

function Subscribed({ unsubscribed }: { unsubscribed: boolean }) {
  return unsubscribed ? <span className="status status-failed">unsubscribed</span> : <span className="status status-verified">subscribed</span>;
}

function AddContact() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const add = useMutation({
    mutationFn: () =>
      api<Answer<'/contacts', 'post'>>('POST', '/contacts', {
        email: email.trim(),
        first_name: first || undefined,
        last_name: last || undefined,
      } satisfies RequestBody<'/contacts', 'post'>),
    onSuccess: ({ id }) => {
      void queryClient.invalidateQueries({ queryKey: ['contacts'] });
      navigate(`/audience/contacts/${id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <form className="panel stacked" onSubmit={submit} aria-labelledby="add-contact-title">
      <h2 id="add-contact-title">Add a contact</h2>
      <label htmlFor="new-contact-email">Address</label>
      <input id="new-contact-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      <label htmlFor="new-contact-first">First name (optional)</label>
      <input id="new-contact-first" value={first} onChange={(e) => setFirst(e.target.value)} />
      <label htmlFor="new-contact-last">Last name (optional)</label>
      <input id="new-contact-last" value={last} onChange={(e) => setLast(e.target.value)} />
      <button type="submit" disabled={add.isPending}>
        Add contact
      </button>
      <ErrorMessage error={add.error} />
    </form>
  );
}

function ContactPage({ contactKey }: { contactKey: string }) {
  const queryClient = useQueryClient();
  const path = `/contacts/${encodeURIComponent(contactKey)}`;
  const contact = useQuery({ queryKey: ['contact', contactKey], queryFn: () => api<Contact>('GET', path) });
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('DELETE', path),
    onSuccess: () => {
      forgetList(queryClient, ['contacts']);
      navigate('/audience');
    },
  });
  const c = contact.data;
  return (
    <>
      <p>
        <a href="/dashboard/audience" onClick={follow('/audience')}>
          ← Contacts
        </a>
      </p>
      <RecordError what="Contact" query={contact} />
      {c && (
        <>
          <h1>{c.email}</h1>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{fullName(c) || '—'}</dd>
            <dt>Mail</dt>
            <dd>
              <Subscribed unsubscribed={c.unsubscribed} />
              {c.unsubscribed && <span className="hint block">Unsubscribed from every broadcast, whatever the topic.</span>}
            </dd>
            <dt>Added</dt>
            <dd>{formatTime(c.created_at)}</dd>
          </dl>
          <EditContact key={c.id} contact={c} path={path} />
          <ContactTopics path={path} contactKey={contactKey} email={c.email} />
          <ContactSegments path={path} contactKey={contactKey} />
          <ContactActivity path={path} contactKey={contactKey} />
          <h2>Delete</h2>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete contact
          </button>
          <ErrorMessage error={remove.error} />
          <ConfirmDialog
            open={deleting}
            title={`Delete ${c.email}?`}
            confirm="Delete"
            onConfirm={() => {
              setDeleting(false);
              remove.mutate();
            }}
            onClose={() => setDeleting(false)}
          >
            <p>The contact leaves every segment and topic. Emails already sent to it stay in the history.</p>
          </ConfirmDialog>
        </>
      )}
    </>
  );
}

/** Names, the unsubscribe state and every defined property, saved in one PATCH. */
function EditContact({ contact, path }: { contact: Contact; path: string }) {
  const queryClient = useQueryClient();
  const definitions = useQuery({ queryKey: ['contact-properties'], queryFn: () => api<List<Property>>('GET', '/contact-properties?limit=100') });
  const [first, setFirst] = useState(contact.first_name ?? '');
  const [last, setLast] = useState(contact.last_name ?? '');
  const [unsubscribed, setUnsubscribed] = useState(contact.unsubscribed);
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(Object.entries(contact.properties).map(([k, p]) => [k, p.value === null ? '' : String(p.value)])),
  );
  const save = useMutation({
    mutationFn: () => {
      const properties: Record<string, PropertyValue> = {};
      for (const d of definitions.data?.data ?? []) {
        const text = values[d.key] ?? '';
        const had = d.key in contact.properties;
        if (text === '' && !had) continue;
        properties[d.key] = text === '' ? null : d.type === 'number' ? Number(text) : text;
      }
      return api('PATCH', path, {
        first_name: first || null,
        last_name: last || null,
        unsubscribed,
        properties,
      } satisfies RequestBody<'/contacts/{contact}', 'patch'>);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['contact'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const defined = definitions.data?.data ?? [];
  return (
    <form className="panel stacked" onSubmit={submit} aria-labelledby="edit-contact-title">
      <h2 id="edit-contact-title">Details and properties</h2>
      <label htmlFor="contact-first">First name</label>
      <input id="contact-first" value={first} onChange={(e) => setFirst(e.target.value)} />
      <label htmlFor="contact-last">Last name</label>
      <input id="contact-last" value={last} onChange={(e) => setLast(e.target.value)} />
      <label className="choice">
        <input type="checkbox" checked={unsubscribed} onChange={(e) => setUnsubscribed(e.target.checked)} />
        Unsubscribed from all broadcasts
      </label>
      {defined.length === 0 && <p className="hint">No contact properties are defined: add them on the Properties tab.</p>}
      {defined.map((d) => (
        <div key={d.id}>
          <label htmlFor={`property-${d.key}`}>
            {d.key} <span className="hint">({d.type})</span>
          </label>
          <input
            id={`property-${d.key}`}
            type={d.type === 'number' ? 'number' : 'text'}
            step="any"
            placeholder={d.fallback_value === null ? '' : `fallback: ${d.fallback_value}`}
            value={values[d.key] ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, [d.key]: e.target.value }))}
          />
        </div>
      ))}
      <button type="submit" disabled={save.isPending}>
        Save
      </button>
      {save.isSuccess && !save.isPending && (
        <p className="hint" role="status">
          Saved.
        </p>
      )}
      <ErrorMessage error={save.error} />
    </form>
  );
}

/** Every topic with this contact's subscription (its own choice, else the topic's default). */
function ContactTopics({ path, contactKey, email }: { path: string; contactKey: string; email: string }) {
  const queryClient = useQueryClient();
  const topics = usePagedList<ContactTopic>(['contact', contactKey, 'topics'], (after) => `${path}/topics${qs({ limit: 20, after })}`);
  const change = useMutation({
    mutationFn: (v: Pick<ContactTopic, 'id' | 'subscription'>) =>
      api('PATCH', `${path}/topics`, { topics: [v] } satisfies RequestBody<'/contacts/{contact}/topics', 'patch'>),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['contact', contactKey, 'topics'] }),
  });
  return (
    <>
      <h2>Topics</h2>
      <ErrorMessage error={change.error} />
      <PagedTable
        paged={topics}
        empty={<p className="hint">No topics yet: create them on the Topics tab.</p>}
        columns={[
          {
            header: 'Topic',
            cell: (t) => (
              <>
                {t.name}
                {t.description && <span className="hint block">{t.description}</span>}
              </>
            ),
          },
          {
            header: 'Subscription',
            cell: (t) =>
              t.subscription === 'opt_in' ? (
                <span className="status status-verified">subscribed (opt_in)</span>
              ) : (
                <span className="status">not subscribed (opt_out)</span>
              ),
          },
          {
            header: 'Actions',
            hideHeader: true,
            cell: (t) =>
              t.subscription === 'opt_in' ? (
                <button
                  type="button"
                  className="secondary small"
                  disabled={change.isPending}
                  onClick={() => change.mutate({ id: t.id, subscription: 'opt_out' })}
                  aria-label={`Unsubscribe ${email} from ${t.name}`}
                >
                  Unsubscribe
                </button>
              ) : (
                <button
                  type="button"
                  className="small"
                  disabled={change.isPending}
                  onClick={() => change.mutate({ id: t.id, subscription: 'opt_in' })}
                  aria-label={`Subscribe ${email} to ${t.name}`}
                >
                  Subscribe
                </button>
              ),
          },
        ]}
      />
    </>
  );
}

function ContactSegments({ path, contactKey }: { path: string; contactKey: string }) {
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState('');
  const mine = usePagedList<Segment>(['contact', contactKey, 'segments'], (after) => `${path}/segments${qs({ limit: 20, after })}`);
  const all = useQuery({ queryKey: ['segments', 'all'], queryFn: () => api<List<Segment>>('GET', '/segments?limit=100') });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['contact', contactKey, 'segments'] });
  const add = useMutation({ mutationFn: (id: string) => api('POST', `${path}/segments/${id}`), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (id: string) => api('DELETE', `${path}/segments/${id}`), onSuccess: refresh });
  const joinable = (all.data?.data ?? []).filter((s) => !mine.rows.some((r) => r.id === s.id));
  return (
    <>
      <h2>Segments</h2>
      <ErrorMessage error={add.error ?? remove.error} />
      <PagedView paged={mine} empty={<p className="hint">In no segment.</p>}>
        {(rows) => (
          <ul className="plain-list">
            {rows.map((s) => (
              <li key={s.id}>
                <a href={`/dashboard/audience/segments/${s.id}`} onClick={follow(`/audience/segments/${s.id}`)}>
                  {s.name}
                </a>{' '}
                <button type="button" className="secondary small" onClick={() => remove.mutate(s.id)} aria-label={`Remove from ${s.name}`}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </PagedView>
      {joinable.length > 0 && (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (adding) add.mutate(adding);
          }}
        >
          <label htmlFor="join-segment" className="visually-hidden">
            Segment to add the contact to
          </label>
          <select id="join-segment" value={adding} onChange={(e) => setAdding(e.target.value)}>
            <option value="">Choose a segment…</option>
            {joinable.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
          <button type="submit" className="secondary" disabled={!adding || add.isPending}>
            Add to segment
          </button>
        </form>
      )}
    </>
  );
}
