// Composing a broadcast: a new draft (POST /broadcasts) or a draft edited (PATCH
// /broadcasts/:id). Its content is HTML written here or copied from a template (GET
// /templates/:id); its merge tags are those GET /broadcasts/merge-tags lists, filled from each
// contact, and any other is flagged as it is typed (merge-tags.tsx); its audience a segment,
// optionally narrowed to a topic. Leaving with unsaved changes asks first (unsaved-changes.tsx).
// Sending and scheduling happen on the broadcast's page.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type Item, type List, type RequestBody } from '../api';
import { forgetList } from '../list-table';
import { ErrorMessage, RecordError } from '../components';
import { follow, navigate } from '../router';
import { useUnsavedChanges } from '../unsaved-changes';
import type { Segment, Topic } from './audience-common';
import {
  MergeTagList,
  mergeTagsQuery,
  type Replaced,
  ReplacedTagsNotice,
  templateForBroadcast,
  UnknownTagsWarning,
  unknownTags,
  useMergeTags,
} from './merge-tags';

/** Resend's `status`: `queued` while waiting for its time and while being sent (Broadcasts.tsx stateOf). */
export type Broadcast = Answer<'/broadcasts/{id}'>;
type TemplateSummary = Item<'/templates'>;
type Template = Answer<'/templates/{id}'>;

export function BroadcastComposePage({ id }: { id?: string }) {
  const existing = useQuery({ queryKey: ['broadcast', id], queryFn: () => api<Broadcast>('GET', `/broadcasts/${id}`), enabled: id !== undefined });
  if (id !== undefined && !existing.data) return <RecordError what="Broadcast" query={existing} />;
  return <ComposeForm broadcast={existing.data} />;
}

function ComposeForm({ broadcast }: { broadcast?: Broadcast }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(broadcast?.name ?? '');
  const [from, setFrom] = useState(broadcast?.from ?? '');
  const [subject, setSubject] = useState(broadcast?.subject ?? '');
  const [replyTo, setReplyTo] = useState((broadcast?.reply_to ?? []).join(', '));
  const [previewText, setPreviewText] = useState(broadcast?.preview_text ?? '');
  const [segmentId, setSegmentId] = useState(broadcast?.segment_id ?? '');
  const [topicId, setTopicId] = useState(broadcast?.topic_id ?? '');
  const [html, setHtml] = useState(broadcast?.html ?? '');
  const [text, setText] = useState(broadcast?.text ?? '');
  const [templateId, setTemplateId] = useState('');
  const fields = { name, from, subject, replyTo, previewText, segmentId, topicId, html, text };
  const [initial] = useState(fields);
  const unsaved = useUnsavedChanges(JSON.stringify(fields) !== JSON.stringify(initial), 'this broadcast');
  const segments = useQuery({ queryKey: ['segments', 'all'], queryFn: () => api<List<Segment>>('GET', '/segments?limit=100') });
  const topics = useQuery({ queryKey: ['topics', 'all'], queryFn: () => api<List<Topic>>('GET', '/topics?limit=100') });
  const templates = useQuery({ queryKey: ['templates', 'all'], queryFn: () => api<List<TemplateSummary>>('GET', '/templates?limit=100') });
  const mergeTags = useMergeTags();
  const [replaced, setReplaced] = useState<Replaced[]>([]);
  const applyTemplate = useMutation({
    mutationFn: async (id: string) => {
      const [template, tags] = await Promise.all([api<Template>('GET', `/templates/${id}`), queryClient.ensureQueryData(mergeTagsQuery)]);
      return { template, copy: templateForBroadcast(template, tags.data) };
    },
    onSuccess: ({ template: t, copy }) => {
      setHtml(copy.html);
      setText(copy.text ?? '');
      if (!subject && copy.subject) setSubject(copy.subject);
      if (!from && t.from) setFrom(t.from);
      setReplaced(copy.replaced);
    },
  });
  const unknown = mergeTags.data ? unknownTags({ Subject: subject, 'Preview text': previewText, HTML: html, Text: text }, mergeTags.data.data) : [];
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: name.trim() || null,
        from: from.trim(),
        subject,
        reply_to: replyTo.trim() ? replyTo.split(',').map((a) => a.trim()) : null,
        preview_text: previewText || null,
        segment_id: segmentId,
        topic_id: topicId || null,
        html: html || null,
        text: text || null,
      } satisfies RequestBody<'/broadcasts', 'post'> & RequestBody<'/broadcasts/{id}', 'patch'>;
      return broadcast
        ? api<Answer<'/broadcasts/{id}', 'patch'>>('PATCH', `/broadcasts/${broadcast.id}`, body)
        : api<Answer<'/broadcasts', 'post'>>('POST', '/broadcasts', body);
    },
    onSuccess: ({ id }) => {
      unsaved.release();
      forgetList(queryClient, ['broadcasts']);
      void queryClient.invalidateQueries({ queryKey: ['broadcast', id] });
      navigate(`/broadcasts/${id}`);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const back = broadcast ? `/broadcasts/${broadcast.id}` : '/broadcasts';
  const noSegments = segments.data && segments.data.data.length === 0;
  return (
    <>
      <p>
        <a href={`/dashboard${back}`} onClick={follow(back)}>
          ← {broadcast ? 'Back to the broadcast' : 'Broadcasts'}
        </a>
      </p>
      <h1>{broadcast ? 'Edit the broadcast' : 'New broadcast'}</h1>
      {noSegments && (
        <p className="notice">
          A broadcast goes to a segment, and there is none yet:{' '}
          <a href="/dashboard/audience/segments" onClick={follow('/audience/segments')}>
            create one
          </a>{' '}
          first.
        </p>
      )}
      <form className="panel compose" onSubmit={submit} aria-labelledby="compose-title">
        <h2 id="compose-title">Message</h2>
        <label htmlFor="broadcast-name">Name (only you see it)</label>
        <input id="broadcast-name" maxLength={256} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="broadcast-from">From</label>
        <input id="broadcast-from" required placeholder="News <news@example.com>" value={from} onChange={(e) => setFrom(e.target.value)} />
        <label htmlFor="broadcast-subject">Subject</label>
        <input id="broadcast-subject" required maxLength={998} value={subject} onChange={(e) => setSubject(e.target.value)} />
        <label htmlFor="broadcast-reply-to">Reply-to (optional, comma-separated)</label>
        <input id="broadcast-reply-to" value={replyTo} onChange={(e) => setReplyTo(e.target.value)} />
        <label htmlFor="broadcast-preview">Preview text (optional)</label>
        <input id="broadcast-preview" maxLength={500} value={previewText} onChange={(e) => setPreviewText(e.target.value)} />

        <h2>Audience</h2>
        <label htmlFor="broadcast-segment">Segment</label>
        <select id="broadcast-segment" required value={segmentId} onChange={(e) => setSegmentId(e.target.value)}>
          <option value="">Choose a segment…</option>
          {(segments.data?.data ?? []).map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <label htmlFor="broadcast-topic">Topic (optional)</label>
        <select id="broadcast-topic" value={topicId} onChange={(e) => setTopicId(e.target.value)} aria-describedby="broadcast-topic-hint">
          <option value="">No topic: every subscribed contact of the segment</option>
          {(topics.data?.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <p className="hint" id="broadcast-topic-hint">
          With a topic, only the segment's contacts subscribed to it receive the broadcast.
        </p>

        <h2>Content</h2>
        {(templates.data?.data.length ?? 0) > 0 && (
          <div className="row">
            <label htmlFor="broadcast-template" className="visually-hidden">
              Template
            </label>
            <select id="broadcast-template" value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
              <option value="">Start from a template…</option>
              {templates.data!.data.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                  {t.status === 'draft' ? ' (draft)' : ''}
                </option>
              ))}
            </select>
            <button type="button" className="secondary" disabled={!templateId || applyTemplate.isPending} onClick={() => applyTemplate.mutate(templateId)}>
              Use template
            </button>
          </div>
        )}
        <ErrorMessage error={applyTemplate.error} />
        <ReplacedTagsNotice replaced={replaced} />
        <label htmlFor="broadcast-html">HTML</label>
        <textarea
          id="broadcast-html"
          rows={12}
          value={html}
          onChange={(e) => setHtml(e.target.value)}
          aria-describedby="broadcast-merge-tags broadcast-tags-warning"
        />
        <MergeTagList id="broadcast-merge-tags" tags={mergeTags.data?.data} error={mergeTags.error} />
        <label htmlFor="broadcast-text">Text (optional: made from the HTML when empty)</label>
        <textarea id="broadcast-text" rows={5} value={text} onChange={(e) => setText(e.target.value)} aria-describedby="broadcast-tags-warning" />
        <UnknownTagsWarning id="broadcast-tags-warning" unknown={unknown} />
        <div className="actions">
          <button type="submit" disabled={save.isPending}>
            {broadcast ? 'Save changes' : 'Save draft'}
          </button>
        </div>
        <ErrorMessage error={save.error} />
      </form>
      {unsaved.dialog}
    </>
  );
}
