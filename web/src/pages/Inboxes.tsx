// Inboxes (src/inboxes/): the account's shared mailboxes (GET /inboxes), and an inbox's threads
// folder by folder (GET /inboxes/:inbox/threads?folders=…), most recently active first, or
// searched with the API's full-text search (GET /inboxes/:inbox/threads/search?query=…, over
// every folder). A thread's page, its messages and actions: inbox-thread.tsx.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type Answer, api, type Item } from '../api';
import { formatTime, RecordError, SearchBox } from '../components';
import { type Column, PagedTable, usePagedList } from '../list-table';
import { follow } from '../router';
import { qs } from './audience-common';

type InboxSummary = Item<'/inboxes'>;
type Inbox = Answer<'/inboxes/{inbox}'>;
type ThreadItem = Item<'/inboxes/{inbox}/threads'>;
export type Folder = ThreadItem['folder'];

/** Every folder, in the order of the tabs (the compiler checks the API has these and no others). */
const FOLDER_TITLES: Record<Folder, string> = { inbox: 'Inbox', archive: 'Archive', sent: 'Sent', spam: 'Spam', trash: 'Trash' };
export const FOLDERS = Object.entries(FOLDER_TITLES).map(([folder, title]) => ({ folder: folder as Folder, title }));

export const inboxPath = (inboxId: string) => `/inboxes/${encodeURIComponent(inboxId)}`;
export const useInbox = (inboxId: string) => useQuery({ queryKey: ['inbox', inboxId], queryFn: () => api<Inbox>('GET', inboxPath(inboxId)) });

export function InboxesPage() {
  const list = usePagedList<InboxSummary>(['inboxes'], (after) => `/inboxes${qs({ limit: 50, after })}`, 10_000);
  return (
    <>
      <h1>Inboxes</h1>
      <p>Shared mailboxes on addresses of your receiving domains: mail to an inbox's address, and your answers, grouped into threads.</p>
      <PagedTable
        paged={list}
        caption="Inboxes"
        empty="No inboxes yet. Create one through the API (POST /inboxes) for an address on a domain that receives mail."
        columns={[
          {
            header: 'Address',
            cell: (i) => (
              <a href={`/dashboard/inboxes/${i.id}`} onClick={follow(`/inboxes/${i.id}`)}>
                {i.email_address}
              </a>
            ),
          },
          { header: 'Name', cell: (i) => i.name ?? '—' },
          { header: 'Unread', cell: (i) => i.unread, className: 'number' },
          { header: 'Last received', cell: (i) => formatTime(i.last_received) },
        ]}
      />
    </>
  );
}

export function InboxPage({ inboxId, folder }: { inboxId: string; folder: Folder }) {
  const inbox = useInbox(inboxId);
  const [search, setSearch] = useState('');
  const i = inbox.data;
  return (
    <>
      <p>
        <a href="/dashboard/inboxes" onClick={follow('/inboxes')}>
          ← Inboxes
        </a>
      </p>
      <RecordError what="Inbox" query={inbox} />
      {i && (
        <>
          <h1>{i.name ?? i.email_address}</h1>
          <p>
            {i.email_address} · {i.unread} unread · {i.drafts} {i.drafts === 1 ? 'draft' : 'drafts'}
          </p>
          <SearchBox
            id="thread-search"
            label="Search this inbox's threads"
            placeholder={'Search: words, "a phrase", -excluded'}
            search={search}
            onSearch={setSearch}
          />
          {search ? (
            <>
              <h2>Threads matching “{search}”</h2>
              <ThreadList key={`search:${search}`} inboxId={inboxId} search={search} />
            </>
          ) : (
            <>
              <FolderTabs inboxId={inboxId} folder={folder} />
              <ThreadList key={folder} inboxId={inboxId} folder={folder} />
            </>
          )}
        </>
      )}
    </>
  );
}

function FolderTabs({ inboxId, folder }: { inboxId: string; folder: Folder }) {
  return (
    <nav aria-label="Folders" className="tabs">
      <ul>
        {FOLDERS.map((f) => {
          const to = f.folder === 'inbox' ? `/inboxes/${inboxId}` : `/inboxes/${inboxId}/${f.folder}`;
          return (
            <li key={f.folder}>
              <a href={`/dashboard${to}`} onClick={follow(to)} aria-current={f.folder === folder ? 'page' : undefined}>
                {f.title}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** A folder's threads, or (with `search`) the threads of every folder that match. */
function ThreadList({ inboxId, folder, search }: { inboxId: string; folder?: Folder; search?: string }) {
  const threads = `${inboxPath(inboxId)}/threads`;
  const list = usePagedList<ThreadItem>(
    ['inbox-threads', inboxId, folder ?? 'search', search],
    (after) =>
      search
        ? `${threads}/search${qs({ query: search, folders: FOLDERS.map((f) => f.folder).join(','), limit: 25, after })}`
        : `${threads}${qs({ folders: folder, limit: 25, after })}`,
    10_000,
  );
  const title = FOLDERS.find((f) => f.folder === folder)?.title;
  const columns: Column<ThreadItem>[] = [
    {
      header: 'Subject',
      cell: (t) => (
        <>
          <a
            href={`/dashboard/inboxes/${inboxId}/threads/${t.id}`}
            onClick={follow(`/inboxes/${inboxId}/threads/${t.id}`)}
            className={t.read ? undefined : 'unread'}
          >
            {t.subject ?? '(no subject)'}
          </a>
          {!t.read && <span className="status status-pending unread-mark">unread</span>}
          {t.labels.map((l) => (
            <span key={l.id} className="status label">
              {l.name}
            </span>
          ))}
        </>
      ),
    },
    { header: 'Participants', cell: (t) => [t.from, ...t.to].filter(Boolean).join(', ') },
    { header: 'Messages', cell: (t) => t.email_count, className: 'number' },
    { header: 'Last message', cell: (t) => formatTime(t.received_at) },
  ];
  if (search) columns.splice(1, 0, { header: 'Folder', cell: (t) => FOLDERS.find((f) => f.folder === t.folder)?.title ?? t.folder });
  return (
    <PagedTable
      paged={list}
      caption={search ? `Threads matching ${search}` : `${title} threads`}
      empty={search ? `No thread holds “${search}”.` : `No threads in ${title}.`}
      columns={columns}
    />
  );
}
