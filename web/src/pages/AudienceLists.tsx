// The audience's definitions: segments (create, list, a segment's members, delete), topics
// (create with their default subscription and visibility, list, delete) and contact
// properties (create with a type and a fallback, list, delete). Through /segments, /topics
// and /contact-properties.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type Item, type RequestBody } from '../api';
import { ConfirmDialog, ErrorMessage, formatTime, RecordError } from '../components';
import { PagedTable, usePagedList } from '../list-table';
import { follow, navigate } from '../router';
import { type ContactSummary, fullName, qs, type Segment, type Topic } from './audience-common';

type Property = Item<'/contact-properties'>;

/** A delete button for one row, asking first. */
function DeleteButton(props: { what: string; explanation: string; path: string; queryKey: string; onDone?: () => void; small?: boolean }) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api('DELETE', props.path),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: [props.queryKey] });
      props.onDone?.();
    },
  });
  return (
    <>
      <button type="button" className={`danger${props.small ? ' small' : ''}`} onClick={() => setAsking(true)} aria-label={`Delete ${props.what}`}>
        Delete
      </button>
      <ErrorMessage error={remove.error} />
      <ConfirmDialog
        open={asking}
        title={`Delete ${props.what}?`}
        confirm="Delete"
        onConfirm={() => {
          setAsking(false);
          remove.mutate();
        }}
        onClose={() => setAsking(false)}
      >
        <p>{props.explanation}</p>
      </ConfirmDialog>
    </>
  );
}

export function SegmentsTab() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const list = usePagedList<Segment>(['segments'], (after) => `/segments${qs({ limit: 25, after })}`);
  const create = useMutation({
    mutationFn: () => api<Answer<'/segments', 'post'>>('POST', '/segments', { name: name.trim() } satisfies RequestBody<'/segments', 'post'>),
    onSuccess: () => {
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['segments'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <p>A segment is a list of contacts a broadcast goes to. Add contacts to it from a contact's page or with an import.</p>
      <form className="panel stacked" onSubmit={submit} aria-labelledby="new-segment-title">
        <h2 id="new-segment-title">Create a segment</h2>
        <label htmlFor="segment-name">Name</label>
        <div className="row">
          <input id="segment-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={create.isPending}>
            Create segment
          </button>
        </div>
        <ErrorMessage error={create.error} />
      </form>
      <h2>Segments</h2>
      <PagedTable
        paged={list}
        empty="No segments yet: create one above."
        columns={[
          {
            header: 'Name',
            cell: (s) => (
              <a href={`/dashboard/audience/segments/${s.id}`} onClick={follow(`/audience/segments/${s.id}`)}>
                {s.name}
              </a>
            ),
          },
          { header: 'Created', cell: (s) => formatTime(s.created_at) },
          {
            header: 'Actions',
            hideHeader: true,
            cell: (s) => (
              <DeleteButton
                small
                what={`segment ${s.name}`}
                explanation="Its contacts stay; only the list goes. Broadcasts already sent to it keep their figures."
                path={`/segments/${s.id}`}
                queryKey="segments"
              />
            ),
          },
        ]}
      />
    </>
  );
}

export function SegmentPage({ id }: { id: string }) {
  const segment = useQuery({ queryKey: ['segment', id], queryFn: () => api<Answer<'/segments/{id}'>>('GET', `/segments/${encodeURIComponent(id)}`) });
  const members = usePagedList<ContactSummary>(
    ['segment', id, 'contacts'],
    (after) => `/segments/${encodeURIComponent(id)}/contacts${qs({ limit: 25, after })}`,
  );
  return (
    <>
      <p>
        <a href="/dashboard/audience/segments" onClick={follow('/audience/segments')}>
          ← Segments
        </a>
      </p>
      <RecordError what="Segment" query={segment} />
      {segment.data && (
        <>
          <h1>{segment.data.name}</h1>
          <p className="hint">Created {formatTime(segment.data.created_at)}</p>
          <h2>Members</h2>
          <p>{segment.data.contacts_count === 1 ? '1 contact' : `${segment.data.contacts_count.toLocaleString()} contacts`} in this segment.</p>
          <PagedTable
            paged={members}
            empty="Nobody is in this segment yet: add contacts from their page, or import a CSV into it."
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
              { header: 'Added', cell: (c) => formatTime(c.created_at) },
            ]}
          />
          <h2>Delete</h2>
          <DeleteButton
            what={`segment ${segment.data.name}`}
            explanation="Its contacts stay; only the list goes."
            path={`/segments/${segment.data.id}`}
            queryKey="segments"
            onDone={() => navigate('/audience/segments')}
          />
        </>
      )}
    </>
  );
}

export function TopicsTab() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [subscription, setSubscription] = useState<Topic['default_subscription']>('opt_in');
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const list = usePagedList<Topic>(['topics'], (after) => `/topics${qs({ limit: 25, after })}`);
  const create = useMutation({
    mutationFn: () =>
      api('POST', '/topics', {
        name: name.trim(),
        description: description.trim() || undefined,
        default_subscription: subscription,
        visibility,
      } satisfies RequestBody<'/topics', 'post'>),
    onSuccess: () => {
      setName('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: ['topics'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <p>Topics let contacts choose what they receive: a broadcast with a topic goes only to the contacts subscribed to it.</p>
      <form className="panel stacked" onSubmit={submit} aria-labelledby="new-topic-title">
        <h2 id="new-topic-title">Create a topic</h2>
        <label htmlFor="topic-name">Name</label>
        <input id="topic-name" required maxLength={50} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="topic-description">Description (optional)</label>
        <input id="topic-description" maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
        <fieldset>
          <legend>Contacts who have not chosen are</legend>
          <label className="choice">
            <input type="radio" name="default-subscription" checked={subscription === 'opt_in'} onChange={() => setSubscription('opt_in')} />
            Subscribed until they unsubscribe (<code>opt_in</code>)
          </label>
          <label className="choice">
            <input type="radio" name="default-subscription" checked={subscription === 'opt_out'} onChange={() => setSubscription('opt_out')} />
            Not subscribed until they subscribe (<code>opt_out</code>)
          </label>
        </fieldset>
        <p className="hint">The default cannot be changed later: it decides for everyone without a choice of their own.</p>
        <label htmlFor="topic-visibility">Visibility</label>
        <select id="topic-visibility" value={visibility} onChange={(e) => setVisibility(e.target.value as 'public' | 'private')}>
          <option value="public">Public: shown on the unsubscribe page</option>
          <option value="private">Private</option>
        </select>
        <button type="submit" disabled={create.isPending}>
          Create topic
        </button>
        <ErrorMessage error={create.error} />
      </form>
      <h2>Topics</h2>
      <PagedTable
        paged={list}
        empty="No topics yet: create one above."
        columns={[
          {
            header: 'Name',
            cell: (t) => (
              <>
                {t.name}
                {t.description && <span className="hint block">{t.description}</span>}
              </>
            ),
          },
          // The API's own word first, then what it means for a contact who has not chosen.
          {
            header: 'Default',
            cell: (t) => (
              <>
                <code>{t.default_subscription}</code>
                <span className="hint block">
                  {t.default_subscription === 'opt_in' ? 'subscribed until they unsubscribe' : 'not subscribed until they subscribe'}
                </span>
              </>
            ),
          },
          { header: 'Visibility', cell: (t) => t.visibility },
          { header: 'Created', cell: (t) => formatTime(t.created_at) },
          {
            header: 'Actions',
            hideHeader: true,
            cell: (t) => (
              <DeleteButton small what={`topic ${t.name}`} explanation="Contacts' choices for it are forgotten." path={`/topics/${t.id}`} queryKey="topics" />
            ),
          },
        ]}
      />
    </>
  );
}

export function PropertiesTab() {
  const queryClient = useQueryClient();
  const [key, setKey] = useState('');
  const [type, setType] = useState<Property['type']>('string');
  const [fallback, setFallback] = useState('');
  const list = usePagedList<Property>(['contact-properties'], (after) => `/contact-properties${qs({ limit: 25, after })}`);
  const create = useMutation({
    mutationFn: () =>
      api('POST', '/contact-properties', {
        key: key.trim(),
        type,
        fallback_value: fallback === '' ? null : type === 'number' ? Number(fallback) : fallback,
      } satisfies RequestBody<'/contact-properties', 'post'>),
    onSuccess: () => {
      setKey('');
      setFallback('');
      void queryClient.invalidateQueries({ queryKey: ['contact-properties'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <>
      <p>
        Properties are the fields a contact may carry besides its name. Broadcasts use them as merge tags by their key: <code>{'{{{plan|free}}}'}</code> is a
        contact's <code>plan</code>, or “free” when it has none.
      </p>
      <form className="panel stacked" onSubmit={submit} aria-labelledby="new-property-title">
        <h2 id="new-property-title">Create a property</h2>
        <label htmlFor="property-key">Key</label>
        <input id="property-key" required pattern="[A-Za-z0-9_]+" value={key} onChange={(e) => setKey(e.target.value)} aria-describedby="property-key-hint" />
        <p className="hint" id="property-key-hint">
          Letters, digits and underscores.
        </p>
        <label htmlFor="property-type">Type</label>
        <select id="property-type" value={type} onChange={(e) => setType(e.target.value as Property['type'])}>
          <option value="string">Text</option>
          <option value="number">Number</option>
        </select>
        <label htmlFor="property-fallback">Fallback value (optional)</label>
        <input id="property-fallback" type={type === 'number' ? 'number' : 'text'} step="any" value={fallback} onChange={(e) => setFallback(e.target.value)} />
        <button type="submit" disabled={create.isPending}>
          Create property
        </button>
        <ErrorMessage error={create.error} />
      </form>
      <h2>Properties</h2>
      <PagedTable
        paged={list}
        empty="No properties yet: create one above."
        columns={[
          { header: 'Key', cell: (p) => <code>{p.key}</code> },
          { header: 'Type', cell: (p) => (p.type === 'number' ? 'number' : 'text') },
          { header: 'Fallback', cell: (p) => (p.fallback_value === null ? '—' : String(p.fallback_value)) },
          { header: 'Created', cell: (p) => formatTime(p.created_at) },
          {
            header: 'Actions',
            hideHeader: true,
            cell: (p) => (
              <DeleteButton
                small
                what={`property ${p.key}`}
                explanation="Its value is removed from every contact."
                path={`/contact-properties/${p.id}`}
                queryKey="contact-properties"
              />
            ),
          },
        ]}
      />
    </>
  );
}
