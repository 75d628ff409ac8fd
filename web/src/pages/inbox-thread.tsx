// One thread of an inbox: its messages oldest first (GET …/threads/:thread/emails, read on with
// "Show more"), each one's HTML in the mail viewer's sandboxed frame (mail-viewer.tsx: no
// scripts, no same-origin, no remote images unless asked) or its text; marking it read or
// unread and moving it between folders (PATCH …/threads/:thread), and a text reply from the
// inbox's address to its newest received message (POST …/emails/:email/reply), which joins
// the thread.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Answer, api, type Item, type RequestBody } from '../api';
import { ErrorMessage, formatTime, RecordError } from '../components';
import { forgetList, ShowMore, useListReadOn } from '../list-table';
import { MailHtml } from '../mail-viewer';
import { follow } from '../router';
import { FOLDERS, type Folder, inboxPath, useInbox } from './Inboxes';

type Thread = Answer<'/inboxes/{inbox}/threads/{thread}'>;
type Message = Item<'/inboxes/{inbox}/threads/{thread}/emails'>;

export function ThreadPage({ inboxId, threadId }: { inboxId: string; threadId: string }) {
  const queryClient = useQueryClient();
  const inbox = useInbox(inboxId);
  const path = `${inboxPath(inboxId)}/threads/${encodeURIComponent(threadId)}`;
  const thread = useQuery({ queryKey: ['inbox-thread', inboxId, threadId], queryFn: () => api<Thread>('GET', path) });
  const messages = useListReadOn<Message>(['inbox-thread-emails', inboxId, threadId], (after) => `${path}/emails?limit=20${after ? `&after=${after}` : ''}`);
  const refresh = () => {
    forgetList(queryClient, ['inbox-threads', inboxId]);
    return Promise.all(
      [['inbox-thread', inboxId, threadId], ['inbox-thread-emails', inboxId, threadId], ['inbox', inboxId], ['inboxes']].map((queryKey) =>
        queryClient.invalidateQueries({ queryKey }),
      ),
    );
  };
  const update = useMutation({
    mutationFn: (change: Pick<RequestBody<'/inboxes/{inbox}/threads/{thread}', 'patch'>, 'read' | 'folder'>) =>
      api<Answer<'/inboxes/{inbox}/threads/{thread}', 'patch'>>('PATCH', path, change),
    onSuccess: (updated) => {
      queryClient.setQueryData(['inbox-thread', inboxId, threadId], updated);
      return refresh();
    },
  });
  const t = thread.data;
  const folderTitle = (f: Folder) => FOLDERS.find((x) => x.folder === f)?.title ?? f;
  const back = t && t.folder !== 'inbox' ? `/inboxes/${inboxId}/${t.folder}` : `/inboxes/${inboxId}`;
  const rows = messages.rows ?? [];
  // The reply answers the newest message received (else the newest: a thread we started).
  const answered = rows.filter((m) => m.direction === 'inbound').at(-1) ?? rows.at(-1);
  return (
    <>
      <p>
        <a href={`/dashboard${back}`} onClick={follow(back)}>
          ← {inbox.data ? (inbox.data.name ?? inbox.data.email_address) : 'Inbox'}
          {t && t.folder !== 'inbox' ? ` · ${folderTitle(t.folder)}` : ''}
        </a>
      </p>
      <RecordError what="Thread" query={thread} />
      {t && <ErrorMessage error={messages.list.error} />}
      {t && (
        <>
          <h1 className="subject">{t.subject ?? '(no subject)'}</h1>
          <p>
            In {folderTitle(t.folder)} · {t.read ? 'read' : 'unread'}
            {t.labels.map((l) => (
              <span key={l.id} className="status label">
                {l.name}
              </span>
            ))}
          </p>
          <div className="row">
            <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ read: !t.read })}>
              {t.read ? 'Mark as unread' : 'Mark as read'}
            </button>
            {t.folder !== 'archive' && t.folder !== 'sent' && (
              <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ folder: 'archive' })}>
                Archive
              </button>
            )}
            {(t.folder === 'archive' || t.folder === 'trash' || t.folder === 'spam') && (
              <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ folder: 'inbox' })}>
                Move to inbox
              </button>
            )}
            {t.folder !== 'trash' && (
              <button type="button" className="danger" disabled={update.isPending} onClick={() => update.mutate({ folder: 'trash' })}>
                Move to trash
              </button>
            )}
            {update.isSuccess && !update.isPending && <span role="status">Saved.</span>}
          </div>
          <ErrorMessage error={update.error} />
          <ol className="thread-messages">
            {rows.map((m) => (
              <li key={m.id}>
                <ThreadMessage message={m} />
              </li>
            ))}
          </ol>
          <ShowMore list={messages.list} what="messages" />
          {answered && (
            <Reply
              path={`${path}/emails/${answered.id}/reply`}
              to={answered.direction === 'inbound' ? answered.from : answered.to.join(', ')}
              onSent={refresh}
            />
          )}
        </>
      )}
    </>
  );
}

function ThreadMessage({ message: m }: { message: Message }) {
  return (
    <article aria-labelledby={`message-${m.id}`} className="panel thread-message">
      <h2 id={`message-${m.id}`} className="message-from">
        {m.from}
      </h2>
      <p className="hint">
        {m.direction === 'inbound' ? 'Received' : 'Sent'} {formatTime(m.received_at)} · to {m.to.join(', ') || '—'}
        {m.cc.length > 0 && ` · cc ${m.cc.join(', ')}`}
        {m.attachments.length > 0 && ` · ${m.attachments.length} ${m.attachments.length === 1 ? 'file' : 'files'}`}
      </p>
      {m.html !== null ? <MailHtml html={m.html} title={`The message from ${m.from}`} /> : <pre className="mail-text">{m.text ?? '(no text)'}</pre>}
    </article>
  );
}

function Reply({ path, to, onSent }: { path: string; to: string; onSent: () => Promise<unknown> }) {
  const [text, setText] = useState('');
  const send = useMutation({
    mutationFn: () =>
      api<Answer<'/inboxes/{inbox}/threads/{thread}/emails/{email}/reply', 'post'>>('POST', path, { text } satisfies RequestBody<
        '/inboxes/{inbox}/threads/{thread}/emails/{email}/reply',
        'post'
      >),
    onSuccess: () => {
      setText('');
      return onSent();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="reply-title">
      <h2 id="reply-title">Reply</h2>
      <p className="hint">From the inbox's address, to {to}.</p>
      <label htmlFor="reply-text">Message</label>
      <textarea id="reply-text" required rows={6} value={text} onChange={(e) => setText(e.target.value)} />
      <div className="row">
        <button type="submit" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send reply'}
        </button>
        {send.isSuccess && !send.isPending && <span role="status">Reply sent.</span>}
      </div>
      <ErrorMessage error={send.error} />
    </form>
  );
}
