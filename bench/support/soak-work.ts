// The crash soak's account and its long-running work: a verified sending domain, the webhook
// endpoint, a published template and the automation it sends (soak.signup → contact_update →
// send_email), the broadcast segment seeded by an import, and the two kinds of work started
// while the kills go on: broadcasts to that segment and contact imports of new addresses. Each
// request is retried until its answer is known, without ever doing the work twice: a broadcast
// is created as a draft once and sent while it is still a draft; an import cut off before its
// 201 may have been queued, and is then simply there twice (every row skipped the second time).
import { Resend } from 'resend';
import type { TestDnsServer } from '../../test/support/dns-server.js';
import { getJson, postJson } from './http-load.js';
import { verifiedSendingDomain } from './sending-domain.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Api {
  url: string;
  apiKey: string;
}

/** Retries a request until it is answered with anything but a network error, a 429 or a 5xx. */
async function answered<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    const reply = await send().catch(() => undefined);
    if (reply && reply.status !== 429 && reply.status < 500) return reply;
    await sleep(250);
  }
}

function must(what: string, reply: { status: number; body: any }, status: number): any {
  if (reply.status !== status) throw new Error(`${what} → ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export interface SoakAccount {
  readersSegment: string;
  importedSegment: string;
  automationId: string;
  webhookId: string;
}

/** Everything the soak's work needs, made before the first kill. */
export async function setUpAccount(api: Api, dns: TestDnsServer, webhookUrl: string, from: string): Promise<SoakAccount & { signingSecret: string }> {
  await verifiedSendingDomain(api, dns);
  const webhook = must(
    'POST /webhooks',
    await postJson(api, '/webhooks', { endpoint: webhookUrl, events: ['email.sent', 'email.delivered', 'contact.created'] }),
    201,
  );
  const resend = new Resend(api.apiKey, { baseUrl: api.url });
  const template = await resend.templates
    .create({ name: 'Welcome', alias: 'soak-welcome', from, subject: 'Welcome {{{FIRST_NAME|friend}}}', html: '<p>Hi {{{FIRST_NAME|friend}}}.</p>' })
    .publish();
  if (template.error) throw new Error(`template: ${JSON.stringify(template.error)}`);
  const automation = await resend.automations.create({
    name: 'Soak signup',
    status: 'enabled',
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: 'soak.signup' } },
      { key: 'name', type: 'contact_update', config: { firstName: { var: 'event.name' } } },
      { key: 'welcome', type: 'send_email', config: { template: { id: template.data!.id } } },
    ],
    connections: [
      { from: 'start', to: 'name' },
      { from: 'name', to: 'welcome' },
    ],
  });
  if (automation.error) throw new Error(`automation: ${JSON.stringify(automation.error)}`);
  const readers = must('POST /segments', await postJson(api, '/segments', { name: 'Readers' }), 201);
  const imported = must('POST /segments', await postJson(api, '/segments', { name: 'Imported' }), 201);
  return {
    readersSegment: readers.id,
    importedSegment: imported.id,
    automationId: automation.data!.id,
    webhookId: webhook.id,
    signingSecret: webhook.signing_secret,
  };
}

/** `reader-<i>` for the broadcast segment, `imp<k>-<i>` for the k-th import. */
function csv(prefix: string, rows: number, domain: string): Blob {
  const lines = ['email,first_name'];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}-${i}@${domain},${prefix} ${i}`);
  return new Blob([`${lines.join('\n')}\n`], { type: 'text/csv' });
}

/** Uploads a CSV of `rows` new contacts into `segmentId`; resolves with the import's id once it is queued. */
export async function startImport(api: Api, prefix: string, rows: number, domain: string, segmentId: string): Promise<string> {
  const file = csv(prefix, rows, domain);
  const reply = await answered(async () => {
    const form = new FormData();
    form.append('file', file, `${prefix}.csv`);
    form.append('column_map', JSON.stringify({ email: 'email', first_name: 'first_name' }));
    form.append('segments', JSON.stringify([{ id: segmentId }]));
    const res = await fetch(`${api.url}/contacts/imports`, { method: 'POST', headers: { authorization: `Bearer ${api.apiKey}` }, body: form });
    return { status: res.status, body: await res.json() };
  });
  return must('POST /contacts/imports', reply, 201).id;
}

/** Waits (through restarts) until the import is completed; throws if it failed. */
export async function importDone(api: Api, id: string): Promise<void> {
  for (;;) {
    const reply = await answered(() => getJson(api, `/contacts/imports/${id}`));
    const status = must('GET /contacts/imports/:id', reply, 200).status;
    if (status === 'completed') return;
    if (status === 'failed') throw new Error(`import ${id} failed: ${JSON.stringify(reply.body)}`);
    await sleep(500);
  }
}

/** Creates a broadcast to the segment as a draft, then sends it; retried without ever sending it twice. */
export async function startBroadcast(api: Api, name: string, segmentId: string, from: string): Promise<string> {
  const created = await answered(() =>
    postJson(api, '/broadcasts', {
      name,
      segment_id: segmentId,
      from,
      subject: `${name} for {{{FIRST_NAME|you}}}`,
      html: '<p>Hello {{{FIRST_NAME|there}}}.</p><p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
    }),
  );
  const id = must('POST /broadcasts', created, 201).id as string;
  for (;;) {
    const sent = await postJson(api, `/broadcasts/${id}/send`, {}).catch(() => undefined);
    if (sent?.status === 200) return id;
    // No answer: it may have been sent before the kill. Only a draft is sent again.
    const current = await answered(() => getJson(api, `/broadcasts/${id}`));
    if (must('GET /broadcasts/:id', current, 200).status !== 'draft') return id;
    await sleep(250);
  }
}
