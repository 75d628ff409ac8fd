// Received mail (/emails/receiving, src/inbound/): what arrived for the account's receiving
// domains, and a message's page with the same viewer as captured and sent mail
// (mail-viewer.tsx: HTML in a sandboxed frame, text, headers), the sender's SPF, DKIM and DMARC
// verdicts as Postline recorded them (`authentication`, not the header, whose text the sender
// partly chose), its attachments and the raw message (signed downloads).
import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { type Answer, api, type Item, type List } from '../api';
import { ErrorMessage, formatTime, RecordError } from '../components';
import { PagedTable, usePagedList } from '../list-table';
import { HeaderTable, MailBody, type MailHeader } from '../mail-viewer';
import { follow } from '../router';

type ReceivedSummary = Item<'/emails/receiving'>;
type ReceivedMessage = Answer<'/emails/receiving/{id}'>;
type Attachment = Item<'/emails/receiving/{id}/attachments'>;

export function ReceivedListPage() {
  const list = usePagedList<ReceivedSummary>(['received'], (after) => `/emails/receiving?limit=50${after ? `&after=${after}` : ''}`, 10_000);
  return (
    <>
      <h1>Received mail</h1>
      <p>Mail that arrived for your receiving domains, newest first.</p>
      <PagedTable
        paged={list}
        empty="Nothing received yet. Turn receiving on for a domain and point its MX record at this Postline: mail sent to any address there appears here."
        columns={[
          {
            header: 'Subject',
            cell: (m) => (
              <a href={`/dashboard/received/${m.id}`} onClick={follow(`/received/${m.id}`)}>
                {m.subject || '(no subject)'}
              </a>
            ),
          },
          { header: 'From', cell: (m) => m.from },
          { header: 'To', cell: (m) => m.received_for.join(', ') },
          { header: 'Attachments', cell: (m) => m.attachments.length, className: 'number' },
          { header: 'Received', cell: (m) => formatTime(m.created_at) },
        ]}
      />
    </>
  );
}

function Verdict({ value }: { value: string }) {
  return <span className={`status ${value === 'pass' ? 'status-verified' : value === 'none' ? '' : 'status-failed'}`}>{value}</span>;
}

export function ReceivedMessagePage({ id }: { id: string }) {
  const message = useQuery({ queryKey: ['received-message', id], queryFn: () => api<ReceivedMessage>('GET', `/emails/receiving/${encodeURIComponent(id)}`) });
  // The attachment routes give each a signed download URL (the message's own list does not).
  const attachments = useQuery({
    queryKey: ['received-attachments', id],
    queryFn: () => api<List<Attachment>>('GET', `/emails/receiving/${encodeURIComponent(id)}/attachments`),
    enabled: (message.data?.attachments.length ?? 0) > 0,
  });
  const m = message.data;
  const headers: MailHeader[] = m ? Object.entries(m.headers).map(([name, value]) => ({ name, value })) : [];
  // The message's own list until the signed one is read.
  const shown: (Attachment | ReceivedMessage['attachments'][number])[] = attachments.data?.data ?? m?.attachments ?? [];
  return (
    <>
      <p>
        <a href="/dashboard/received" onClick={follow('/received')}>
          ← Received mail
        </a>
      </p>
      <RecordError what="Received email" query={message} />
      {m && (
        <>
          <h1 className="subject">{m.subject || '(no subject)'}</h1>
          <dl className="facts">
            <dt>From</dt>
            <dd>{m.from}</dd>
            <dt>To</dt>
            <dd>{m.to.join(', ') || '—'}</dd>
            {m.cc.length > 0 && (
              <>
                <dt>Cc</dt>
                <dd>{m.cc.join(', ')}</dd>
              </>
            )}
            {m.reply_to.length > 0 && (
              <>
                <dt>Reply to</dt>
                <dd>{m.reply_to.join(', ')}</dd>
              </>
            )}
            <dt>Delivered to</dt>
            <dd>{m.received_for.join(', ')}</dd>
            <dt>Received</dt>
            <dd>{formatTime(m.created_at)}</dd>
            {(['spf', 'dkim', 'dmarc'] as const).map((method) => (
              <Fragment key={method}>
                <dt>{method.toUpperCase()}</dt>
                <dd>
                  <Verdict value={m.authentication[method]} />
                </dd>
              </Fragment>
            ))}
          </dl>
          <p>
            {/* A signed URL on Postline itself, valid for an hour: no key needed, always a download. */}
            <a href={m.raw.download_url} download={`${m.id}.eml`}>
              Download the raw message (.eml)
            </a>
          </p>
          <MailBody html={m.html} text={m.text} />
          {m.attachments.length > 0 && (
            <>
              <h2>Attachments</h2>
              <ErrorMessage error={attachments.error} />
              <ul className="attachments">
                {shown.map((a) => (
                  <li key={a.id}>
                    {'download_url' in a ? (
                      <a href={a.download_url} download={a.filename ?? ''}>
                        {a.filename ?? '(no name)'}
                      </a>
                    ) : (
                      (a.filename ?? '(no name)')
                    )}{' '}
                    <span className="hint">
                      {a.content_type} · {a.size.toLocaleString()} bytes{a.content_id ? ' · inline' : ''}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <HeaderTable headers={headers} />
        </>
      )}
    </>
  );
}
