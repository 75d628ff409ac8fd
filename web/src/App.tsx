// The app: sign-in and set-password without a session, else the shell with its navigation
// and the page the path names. Without a session, any other page leaves for sign-in (api.ts).
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { api, type Session, setCsrfToken } from './api';
import type { Folder } from './pages/Inboxes';
import { SetPasswordPage } from './pages/SetPassword';
import { SignInPage } from './pages/SignIn';
import { follow, usePath } from './router';
import { leaveForSignIn } from './session';

// Pages beyond the first ones load when opened, keeping the shell small (issue 16: ≤ 300 KB).
const QueuePage = lazy(() => import('./pages/Queue').then((m) => ({ default: m.QueuePage })));
const QueueDestinationPage = lazy(() => import('./pages/Queue').then((m) => ({ default: m.QueueDestinationPage })));
const EmailsPage = lazy(() => import('./pages/Emails').then((m) => ({ default: m.EmailsPage })));
const EmailPage = lazy(() => import('./pages/Emails').then((m) => ({ default: m.EmailPage })));
const CapturedListPage = lazy(() => import('./pages/Captured').then((m) => ({ default: m.CapturedListPage })));
const AudiencePage = lazy(() => import('./pages/Audience').then((m) => ({ default: m.AudiencePage })));
const BroadcastsPage = lazy(() => import('./pages/Broadcasts').then((m) => ({ default: m.BroadcastsPage })));
const CapturedMessagePage = lazy(() => import('./pages/Captured').then((m) => ({ default: m.CapturedMessagePage })));
const WebhooksPage = lazy(() => import('./pages/Webhooks').then((m) => ({ default: m.WebhooksPage })));
const WebhookPage = lazy(() => import('./pages/Webhooks').then((m) => ({ default: m.WebhookPage })));
const WebhookMessagePage = lazy(() => import('./pages/Webhooks').then((m) => ({ default: m.WebhookMessagePage })));
const TemplatesPage = lazy(() => import('./pages/Templates').then((m) => ({ default: m.TemplatesPage })));
const TemplatePage = lazy(() => import('./pages/Templates').then((m) => ({ default: m.TemplatePage })));
const AutomationsPage = lazy(() => import('./pages/Automations').then((m) => ({ default: m.AutomationsPage })));
const AutomationPage = lazy(() => import('./pages/Automations').then((m) => ({ default: m.AutomationPage })));
const RunPage = lazy(() => import('./pages/Automations').then((m) => ({ default: m.RunPage })));
const AutomationEditorPage = lazy(() => import('./pages/automation-editor').then((m) => ({ default: m.AutomationEditorPage })));
const ReceivedListPage = lazy(() => import('./pages/Received').then((m) => ({ default: m.ReceivedListPage })));
const ReceivedMessagePage = lazy(() => import('./pages/Received').then((m) => ({ default: m.ReceivedMessagePage })));
const InboxesPage = lazy(() => import('./pages/Inboxes').then((m) => ({ default: m.InboxesPage })));
const InboxPage = lazy(() => import('./pages/Inboxes').then((m) => ({ default: m.InboxPage })));
const ThreadPage = lazy(() => import('./pages/inbox-thread').then((m) => ({ default: m.ThreadPage })));
const SuppressionsPage = lazy(() => import('./pages/Suppressions').then((m) => ({ default: m.SuppressionsPage })));
const LogsPage = lazy(() => import('./pages/Logs').then((m) => ({ default: m.LogsPage })));
const LogPage = lazy(() => import('./pages/Logs').then((m) => ({ default: m.LogPage })));
const OverviewPage = lazy(() => import('./pages/Overview').then((m) => ({ default: m.OverviewPage })));
const ApiKeysPage = lazy(() => import('./pages/ApiKeys').then((m) => ({ default: m.ApiKeysPage })));
const DomainsPage = lazy(() => import('./pages/Domains').then((m) => ({ default: m.DomainsPage })));
const DomainPage = lazy(() => import('./pages/Domains').then((m) => ({ default: m.DomainPage })));

const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/emails', title: 'Emails' },
  { path: '/domains', title: 'Domains' },
  { path: '/api-keys', title: 'API keys' },
  { path: '/webhooks', title: 'Webhooks' },
  { path: '/templates', title: 'Templates' },
  { path: '/audience', title: 'Audience' },
  { path: '/broadcasts', title: 'Broadcasts' },
  { path: '/automations', title: 'Automations' },
  { path: '/received', title: 'Received' },
  { path: '/inboxes', title: 'Inboxes' },
  { path: '/suppressions', title: 'Suppressions' },
  { path: '/logs', title: 'Logs' },
  { path: '/queue', title: 'Queue' },
  // Only a sandbox captures mail (POSTLINE_SANDBOX; the session says so).
  { path: '/captured', title: 'Captured mail', sandboxOnly: true },
];

export function App() {
  const path = usePath();
  const signedOut = path === '/set-password' || path === '/sign-in';
  const session = useQuery({ queryKey: ['session'], queryFn: () => api<Session>('GET', '/dashboard/api/session'), enabled: !signedOut });
  useEffect(() => setCsrfToken(session.data?.csrf_token), [session.data]);

  if (path === '/set-password') return <SetPasswordPage />;
  if (path === '/sign-in') return <SignInPage />;
  if (session.isPending) return <p className="loading">Loading…</p>;
  if (session.error) return <p role="alert">Postline did not answer: {session.error.message}</p>;
  return <Shell session={session.data} path={path} />;
}

function Shell({ session, path }: { session: Session; path: string }) {
  const section = `/${path.split('/')[1] ?? ''}`;
  const pages = PAGES.filter((p) => !p.sandboxOnly || session.sandbox);
  const page = pages.find((p) => p.path === section);
  useEffect(() => {
    document.title = `${page?.title ?? 'Not found'} · Postline`;
  }, [page]);
  const signOut = async () => {
    // Whatever the server answers (a session already ended, Postline down), this tab forgets the account.
    await api('POST', '/dashboard/api/sign-out').catch(() => undefined);
    leaveForSignIn();
  };
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Postline</span>
        <span className="who">
          {session.user.email} · {session.account.name}
        </span>
        <button type="button" className="secondary small" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main" className="sidebar">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <a href={`/dashboard${p.path}`} onClick={follow(p.path)} aria-current={p.path === section ? 'page' : undefined}>
                {p.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p className="loading">Loading…</p>}>{renderPage(path, page?.title)}</Suspense>
      </main>
    </div>
  );
}

function renderPage(path: string, title: string | undefined) {
  if (path === '/') return <OverviewPage />;
  if (path === '/api-keys') return <ApiKeysPage />;
  if (path === '/domains') return <DomainsPage />;
  if (path.startsWith('/domains/')) return <DomainPage id={decodeURIComponent(path.slice('/domains/'.length))} />;
  if (path === '/audience' || path.startsWith('/audience/')) return <AudiencePage path={path} />;
  if (path === '/broadcasts' || path.startsWith('/broadcasts/')) return <BroadcastsPage path={path} />;
  if (path === '/emails') return <EmailsPage />;
  if (path.startsWith('/emails/')) return <EmailPage id={decodeURIComponent(path.slice('/emails/'.length))} />;
  if (path === '/queue') return <QueuePage />;
  if (path.startsWith('/queue/')) return <QueueDestinationPage destination={decodeURIComponent(path.slice('/queue/'.length))} />;
  if (path === '/webhooks') return <WebhooksPage />;
  const webhook = /^\/webhooks\/([^/]+)(?:\/messages\/([^/]+))?$/.exec(path);
  if (webhook?.[2]) return <WebhookMessagePage id={decodeURIComponent(webhook[1]!)} messageId={decodeURIComponent(webhook[2])} />;
  if (webhook) return <WebhookPage id={decodeURIComponent(webhook[1]!)} />;
  if (path === '/templates') return <TemplatesPage />;
  if (path.startsWith('/templates/')) {
    const id = decodeURIComponent(path.slice('/templates/'.length));
    return <TemplatePage key={id} id={id} />;
  }
  if (path === '/automations') return <AutomationsPage />;
  const run = /^\/automations\/([^/]+)\/runs\/([^/]+)$/.exec(path);
  if (run) return <RunPage automationId={decodeURIComponent(run[1]!)} runId={decodeURIComponent(run[2]!)} />;
  if (path === '/automations/new') return <AutomationEditorPage key="new" />;
  const editing = /^\/automations\/([^/]+)\/edit$/.exec(path);
  if (editing) return <AutomationEditorPage key={editing[1]} id={decodeURIComponent(editing[1]!)} />;
  if (path.startsWith('/automations/')) return <AutomationPage id={decodeURIComponent(path.slice('/automations/'.length))} />;
  if (path === '/received') return <ReceivedListPage />;
  if (path.startsWith('/received/')) return <ReceivedMessagePage id={decodeURIComponent(path.slice('/received/'.length))} />;
  if (path === '/inboxes') return <InboxesPage />;
  const thread = /^\/inboxes\/([^/]+)\/threads\/([^/]+)$/.exec(path);
  if (thread) return <ThreadPage inboxId={decodeURIComponent(thread[1]!)} threadId={decodeURIComponent(thread[2]!)} />;
  const inbox = /^\/inboxes\/([^/]+)(?:\/(archive|sent|spam|trash))?$/.exec(path);
  if (inbox) {
    const id = decodeURIComponent(inbox[1]!);
    // Keyed by the inbox, so another inbox starts with its own search and pages.
    return <InboxPage key={id} inboxId={id} folder={(inbox[2] as Folder | undefined) ?? 'inbox'} />;
  }
  if (path === '/suppressions') return <SuppressionsPage />;
  if (path === '/logs') return <LogsPage />;
  if (path.startsWith('/logs/')) return <LogPage id={decodeURIComponent(path.slice('/logs/'.length))} />;
  if (title === 'Captured mail' && path === '/captured') return <CapturedListPage />;
  if (title === 'Captured mail') return <CapturedMessagePage id={decodeURIComponent(path.slice('/captured/'.length))} />;
  return (
    <>
      <h1>Not found</h1>
      <p>There is no page at this address.</p>
    </>
  );
}
