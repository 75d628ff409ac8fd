// A contact's activity on its page (GET /contacts/:contact/activity): the newest emails sent to
// it with their opens and clicks, the broadcasts it unsubscribed from, its automation runs; each
// links to its own page.
import { useQuery } from '@tanstack/react-query';
import { type Answer, api } from '../api';
import { ErrorMessage, formatTime } from '../components';
import { ListTable } from '../list-table';
import { follow } from '../router';

type Activity = Answer<'/contacts/{contact}/activity'>;

const link = (path: string, text: string) => (
  <a href={`/dashboard${path}`} onClick={follow(path)}>
    {text}
  </a>
);

export function ContactActivity({ path, contactKey }: { path: string; contactKey: string }) {
  const activity = useQuery({ queryKey: ['contact', contactKey, 'activity'], queryFn: () => api<Activity>('GET', `${path}/activity`) });
  const a = activity.data;
  return (
    <section aria-labelledby="contact-activity-title">
      <h2 id="contact-activity-title">Activity</h2>
      <ErrorMessage error={activity.error} />
      {a && (
        <>
          <h3>Emails</h3>
          {a.emails.length === 0 ? (
            <p className="hint">No email was sent to this address yet.</p>
          ) : (
            <ListTable
              caption="Emails sent to the contact, newest first"
              rows={a.emails}
              columns={[
                { header: 'Subject', cell: (e) => link(`/emails/${e.id}`, e.subject || '(no subject)') },
                { header: 'Last event', cell: (e) => e.last_event },
                { header: 'Opens', cell: (e) => e.opens },
                { header: 'Clicks', cell: (e) => e.clicks },
                { header: 'Sent', cell: (e) => formatTime(e.created_at) },
              ]}
            />
          )}
          <h3>Unsubscribes</h3>
          {a.unsubscribes.length === 0 ? (
            <p className="hint">It never unsubscribed from a broadcast's link.</p>
          ) : (
            <ListTable
              caption="Broadcasts the contact unsubscribed from"
              rows={a.unsubscribes}
              rowKey={(u) => u.broadcast_id}
              columns={[
                { header: 'Broadcast', cell: (u) => link(`/broadcasts/${u.broadcast_id}`, u.broadcast_name ?? u.broadcast_id) },
                { header: 'When', cell: (u) => formatTime(u.created_at) },
              ]}
            />
          )}
          <h3>Automation runs</h3>
          {a.automation_runs.length === 0 ? (
            <p className="hint">No automation ran for this contact.</p>
          ) : (
            <ListTable
              caption="Automation runs for the contact, newest first"
              rows={a.automation_runs}
              columns={[
                { header: 'Automation', cell: (r) => link(`/automations/${r.automation_id}/runs/${r.id}`, r.automation_name) },
                { header: 'Status', cell: (r) => r.status },
                { header: 'Started', cell: (r) => formatTime(r.started_at) },
              ]}
            />
          )}
        </>
      )}
    </section>
  );
}
