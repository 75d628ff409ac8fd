// The Postline a route fuzzer runs against, and what it checks of each answer. The server is
// started with a rate limit no fuzzer reaches and with records of two accounts (a domain, an
// email, a contact, a template…), so generated ids include real ones, this account's and
// another's; a dashboard user signs in through the API for the session-cookie requests.
// Requests go out through node:http as bytes (fuzz-requests.ts), so what the server gets is
// what was generated.
import assert from 'node:assert/strict';
import http from 'node:http';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createUser } from '../../src/users/users.js';
import { createVerifiedDomain } from './domains.js';
import { eventually } from './eventually.js';
import type { Auth, FuzzRequest, FuzzRoute, KnownValues } from './fuzz-requests.js';
import { rawRequest, startTestPostline, type TestPostline } from './postline.js';

/** No answer may take longer (issue 17). */
const SLOWEST_ALLOWED_MS = 5_000;

export interface FuzzTarget {
  t: TestPostline;
  openapi: any;
  known: KnownValues;
  send(request: FuzzRequest): Promise<FuzzAnswer>;
  stop(): Promise<void>;
}

interface FuzzAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

interface Credentials {
  key: string;
  sendingKey: string;
  otherAccountKey: string;
  session: { cookie: string; csrf: string };
}

export async function startFuzzTarget(): Promise<FuzzTarget> {
  const t = await startTestPostline({ env: { POSTLINE_RATE_LIMIT: '1000000', POSTLINE_PUBLIC_RATE_LIMIT: '1000000', POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  try {
    const other = await createAccount(t.postline.db, 'other');
    const ours = await recordsOf(t, t.apiKey, 'ours');
    const theirs = await recordsOf(t, other.token, 'theirs');
    const sending = await rawRequest(t, 'POST', '/api-keys', { body: { name: 'sending', permission: 'sending_access' } });
    assert.equal(sending.status, 201, JSON.stringify(sending.body));
    const credentials: Credentials = { key: t.apiKey, sendingKey: sending.body.token, otherAccountKey: other.token, session: await signIn(t) };
    const known: KnownValues = {
      ids: [...ours.ids, ...theirs.ids],
      emails: [...ours.emails, ...theirs.emails],
      names: [...ours.names, ...theirs.names],
    };
    const openapi = (await rawRequest(t, 'GET', '/openapi.json', { auth: null })).body;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    return {
      t,
      openapi,
      known,
      async send(request) {
        const answer = await sendRaw(t.url, agent, request, credentials);
        // A signed-out or replaced session: sign in again, so later requests keep reaching routes.
        if (request.auth === 'session' && (answer.status === 401 || String(answer.headers['set-cookie'] ?? '').includes('Max-Age=0'))) {
          credentials.session = await signIn(t);
        }
        return answer;
      },
      async stop() {
        agent.destroy();
        await t.stop();
      },
    };
  } catch (err) {
    await t.stop();
    throw err;
  }
}

/** An account's records, made through the API as a client makes them: their ids, addresses and names. */
async function recordsOf(t: TestPostline, key: string, label: string): Promise<KnownValues> {
  const resend = new Resend(key, { baseUrl: t.url });
  const domain = await createVerifiedDomain({ dns: t.dns, resend }, `${label}.fuzz.test`);
  const create = async (path: string, body: object) => {
    const res = await rawRequest(t, 'POST', path, { body, auth: key });
    assert.ok(res.status < 300, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const email = await create('/emails', { from: `a@${domain.name}`, to: `${label}@example.org`, subject: 'fuzz', text: 'hello' });
  const contact = await create('/contacts', { email: `${label}+contact@example.org` });
  const segment = await create('/segments', { name: `${label} segment` });
  const topic = await create('/topics', { name: `${label} topic`, default_subscription: 'opt_in' });
  const property = await create('/contact-properties', { key: `${label}_property`, type: 'string' });
  const template = await create('/templates', { name: `${label} template`, alias: `${label}-template`, html: '<p>hello</p>' });
  await create(`/templates/${template.id}/publish`, {});
  const event = await create('/events', { name: `${label}.happened` });
  const broadcast = await create('/broadcasts', { from: `a@${domain.name}`, subject: 'fuzz', html: '<p>hi</p>', segment_id: segment.id });
  const webhook = await create('/webhooks', { endpoint: 'http://127.0.0.1:9/hook', events: ['email.sent'] });
  const apiKey = await create('/api-keys', { name: `${label} spare` });
  await create('/suppressions', { email: `${label}+suppressed@example.org` });
  return {
    ids: [domain.id, email.id, contact.id, segment.id, topic.id, property.id, template.id, event.id, broadcast.id, webhook.id, apiKey.id],
    emails: [`${label}+contact@example.org`, `${label}+suppressed@example.org`],
    names: [domain.name, `${label}-template`, `${label}.happened`, `${label}_property`, 'example.org'],
  };
}

/**
 * After a fuzz: the official SDK's send, from a domain verified now to one no request named (a
 * fuzzed request may have deleted the earlier domain or paused a destination), is accepted and
 * delivered, and the probes answer 200.
 */
export async function assertStillServing(t: TestPostline): Promise<void> {
  const domain = await createVerifiedDomain(t, 'after.fuzz.test');
  t.dns.set('delivered.fuzz.test', { MX: [{ exchange: 'mx.sink.fuzz.test', priority: 10 }] });
  t.dns.set('mx.sink.fuzz.test', { A: ['127.0.0.1'] });
  const sent = await t.resend.emails.send({
    from: `after@${domain.name}`,
    to: 'still-serving@delivered.fuzz.test',
    subject: 'After the fuzz',
    text: 'Still serving.',
  });
  assert.equal(sent.error, null, JSON.stringify(sent.error));
  await eventually(async () => (await t.resend.emails.get(sent.data!.id)).data?.last_event === 'delivered', 15_000, 'the send after the fuzz delivered');
  for (const probe of ['/healthz', '/readyz']) assert.equal((await fetch(`${t.url}${probe}`)).status, 200, probe);
}

let users = 0;

/** A new dashboard user of the default account, signed in through its set-password link. */
async function signIn(t: TestPostline): Promise<Credentials['session']> {
  const { token } = await createUser(t.postline.db, 'Default', `fuzz-user-${++users}@example.org`);
  const res = await rawRequest(t, 'POST', '/dashboard/api/set-password', { body: { token, password: 'correct horse battery' }, auth: null });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const cookie = String(res.headers.get('set-cookie')).split(';')[0]!;
  return { cookie, csrf: res.body.csrf_token };
}

function authHeaders(auth: Auth, c: Credentials): Record<string, string> {
  switch (auth) {
    case 'key':
      return { authorization: `Bearer ${c.key}` };
    case 'sending-key':
      return { authorization: `Bearer ${c.sendingKey}` };
    case 'other-account-key':
      return { authorization: `Bearer ${c.otherAccountKey}` };
    case 'bad-key':
      return { authorization: `Bearer re_${'0'.repeat(32)}` };
    case 'not-bearer':
      return { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` };
    case 'session':
      return { cookie: c.session.cookie, 'x-csrf-token': c.session.csrf };
    case 'session-without-csrf':
      return { cookie: c.session.cookie };
    case 'bad-cookie':
      return { cookie: 'postline_session=forged; other=\xff' };
    case 'no-key':
      return {};
  }
}

/**
 * Sends once more when a kept-alive connection turned out closed by the server just before the
 * request was written (the client's race, not an answer; Node's documented pattern).
 */
async function sendRaw(base: string, agent: http.Agent, request: FuzzRequest, credentials: Credentials): Promise<FuzzAnswer> {
  try {
    return await sendOnce(base, agent, request, credentials);
  } catch (err) {
    if ((err as { reusedSocket?: boolean }).reusedSocket && ['ECONNRESET', 'EPIPE'].includes((err as NodeJS.ErrnoException).code ?? '')) {
      return sendOnce(base, agent, request, credentials);
    }
    throw err;
  }
}

function sendOnce(base: string, agent: http.Agent, request: FuzzRequest, credentials: Credentials): Promise<FuzzAnswer> {
  const url = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        agent,
        headers: { ...request.headers, ...authHeaders(request.auth, credentials), ...(request.body ? { 'content-length': request.body.length } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }));
        res.on('error', reject);
      },
    );
    // Past the limit the request has failed anyway; a bounded wait keeps the run from hanging.
    req.setTimeout(SLOWEST_ALLOWED_MS * 3, () => req.destroy(new Error(`no answer within ${SLOWEST_ALLOWED_MS * 3} ms`)));
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(request.body);
  });
}

/** What is wrong with an answer, if anything: a 5xx, an error outside Resend's shape, slowness. */
export function problemWith(request: FuzzRequest, answer: FuzzAnswer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  if (answer.ms > SLOWEST_ALLOWED_MS) return `took ${Math.round(answer.ms)} ms`;
  if (answer.status < 300 || request.method === 'HEAD') return undefined;
  if (answer.status < 400) return answer.headers.location ? undefined : `answered ${answer.status} without a Location`;
  return notResendError(request.route, answer);
}

function notResendError(route: FuzzRoute, answer: FuzzAnswer): string | undefined {
  // The unsubscribe page shows a person in a browser a page for a link that is not valid.
  if (route.page && String(answer.headers['content-type']).startsWith('text/html')) return undefined;
  let body: any;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`;
  }
  const keys = body && typeof body === 'object' ? Object.keys(body).sort().join(',') : typeof body;
  if (keys !== 'message,name,statusCode') return `answered ${answer.status} with keys ${keys}: ${JSON.stringify(body).slice(0, 200)}`;
  if (body.statusCode !== answer.status) return `answered ${answer.status} with statusCode ${body.statusCode}`;
  if (typeof body.message !== 'string' || typeof body.name !== 'string') return `answered ${answer.status} with message or name not a string`;
  return undefined;
}

/** A request in a line a person can replay. */
export function describeRequest(request: FuzzRequest): string {
  const body = request.body ? ` body(${request.body.length} B)=${JSON.stringify(request.body.subarray(0, 300).toString('latin1'))}` : '';
  return `${request.method} ${request.path.slice(0, 300)} [${request.route.method} ${request.route.template}] auth=${request.auth} headers=${JSON.stringify(request.headers).slice(0, 300)}${body}`;
}
