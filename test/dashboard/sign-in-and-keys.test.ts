// The dashboard in a real browser against a real `postline start`: the set-up link it logs on
// a database without users, set password, sign in (and a wrong password refused), add a domain
// and read its DNS records, create an API key in the UI and send with the resend SDK using it,
// delete the key after the confirmation, sign out. Then what a browser cannot show: a change
// without the anti-forgery token changes nothing, another account's key is not found,
// sign-in attempts are throttled, `postline users create`. Then, on a Postline of its own, a
// session idle too long is refused and the page asks to sign in again.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Resend } from 'resend';
import { baseEnv, externalDatabase, PostlineProcess, runCli, tempDataDir } from '../cli/postline-process.js';
import { TestDnsServer } from '../support/dns-server.js';
import { type PublishedRecord, publishRecords } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { artifactsDir, assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

const IDLE_SECONDS = 10;
const EMAIL = 'owner@dash.postline.test';
const PASSWORD = 'correct horse battery';

describe('dashboard: sign in, domains and API keys in a browser', () => {
  let dns: TestDnsServer;
  let dataDir: string;
  let external: Awaited<ReturnType<typeof externalDatabase>> | undefined;
  let env: Record<string, string>;
  let server: PostlineProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    dns = await new TestDnsServer().start();
    dataDir = await tempDataDir();
    external = process.env.POSTLINE_TEST_DB === 'external' ? await externalDatabase() : undefined;
    env = baseEnv({
      POSTLINE_DATA_DIR: dataDir,
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_SMTP_HOSTNAME: 'mta.postline.test',
      ...(external ? { DATABASE_URL: external.url } : {}),
    });
    server = await PostlineProcess.start(env);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    page = await context.newPage();
    console.log(`# screenshots in ${artifactsDir}`);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await dns?.stop();
    await external?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const csrf = () => page.evaluate(async () => (await (await fetch('/dashboard/api/session')).json()).csrf_token as string);
  const inPage = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    page.evaluate(
      async ([method, path, headers, body]) => {
        const res = await fetch(path as string, {
          method: method as string,
          headers: { 'content-type': 'application/json', ...(headers as Record<string, string>) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      },
      [method, path, headers, body] as const,
    );

  it('creates the first user from the set-up link logged at start, and signs in', async () => {
    const line = server.lines.find((l) => l.includes('/dashboard/set-password#token='));
    assert.ok(line, `no set-up link in the log:\n${server.lines.join('\n')}`);
    const link = /(\/dashboard\/set-password#token=[A-Za-z0-9_-]+&setup=1)/.exec(line)![1]!;
    await page.goto(server.url + link);
    await page.getByRole('heading', { name: 'Create the first user' }).waitFor();
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await screenshot(page, '01-set-up-link');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Nothing sent yet').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count(), 14);
    await screenshot(page, '02-overview-shell');
    const headers = (await page.request.get(`${server.url}/dashboard/`)).headers();
    assert.match(headers['content-security-policy']!, /script-src 'self'/);
    // The link is spent.
    await page.goto(server.url + link);
    await page.getByLabel('Email address').fill('other@dash.postline.test');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'expired or has been used' }).waitFor();
  });

  it('refuses a wrong password, and signs in with the right one', async () => {
    await context.clearCookies();
    await page.goto(`${server.url}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in to Postline' }).waitFor();
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email address or password.' }).waitFor();
    await screenshot(page, '03-sign-in-wrong-password');
    await assertAccessible(page, 'sign-in with an error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  let domainId: string;
  let records: PublishedRecord[];
  it('adds a domain and shows its DNS records, each with a copy button', async () => {
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByText('No domains yet').waitFor();
    await page.getByLabel('Domain name').fill('dash.postline.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'dash.postline.test' }).waitFor();
    domainId = page.url().split('/').pop()!;
    const domain = await inPage('GET', `/domains/${domainId}`);
    records = domain.body.records;
    // Resend's records, then the ones Postline recommends (DMARC), each a row with a copy button.
    const shown = [...records, ...domain.body.recommended_records];
    const rows = page.locator('table.records tbody tr');
    assert.equal(await rows.count(), shown.length);
    for (const r of shown) await page.getByText(r.value, { exact: true }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: /^Copy the / }).count(), shown.length);
    await screenshot(page, '04-domain-records');
    await assertAccessible(page, 'a domain and its records');
    await page.getByRole('link', { name: '← Domains' }).click();
    await page.getByRole('link', { name: 'dash.postline.test' }).waitFor();
    await screenshot(page, '05-domains-list');
  });

  let token: string;
  it('creates an API key in the UI whose token sends with the resend SDK', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No keys yet').waitFor();
    await page.getByLabel('Name').fill('from the dashboard');
    await page.getByLabel('Full access').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    token = (await page.getByTestId('new-token').textContent())!;
    assert.match(token, /^re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$/);
    await page.getByRole('cell', { name: 'from the dashboard', exact: true }).waitFor();
    await screenshot(page, '06-api-key-created');
    await assertAccessible(page, 'API keys with a new token');

    const resend = new Resend(token, { baseUrl: server.url });
    publishRecords({ dns }, 'dash.postline.test', records);
    const verified = await resend.domains.verify(domainId);
    assert.equal(verified.error, null, JSON.stringify(verified.error));
    const sent = await resend.emails.send({ from: `Owner <${EMAIL}>`, to: 'delivered@resend.dev', subject: 'From a dashboard key', text: 'Hello.' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.ok(sent.data?.id);
  });

  it('refuses a change without the anti-forgery token, and changes nothing', async () => {
    const before = await inPage('GET', '/api-keys');
    const forged = await inPage('POST', '/api-keys', {}, { name: 'forged' });
    assert.equal(forged.status, 403);
    assert.deepEqual(Object.keys(forged.body).sort(), ['message', 'name', 'statusCode']);
    assert.equal(forged.body.name, 'invalid_csrf_token');
    const wrong = await inPage('DELETE', `/api-keys/${before.body.data[0].id}`, { 'x-csrf-token': 'not-the-token' });
    assert.equal(wrong.status, 403);
    assert.deepEqual((await inPage('GET', '/api-keys')).body, before.body);
  });

  it("answers not found for another account's key", async () => {
    const other = await runCli(['accounts', 'create', 'Other'], env);
    assert.equal(other.code, 0, other.stderr);
    const otherKey = /api key (\S+)/.exec(other.stdout)![1]!;
    const created = await fetch(`${server.url}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'theirs' }),
    }).then((r) => r.json());
    const answer = await inPage('DELETE', `/api-keys/${created.id}`, { 'x-csrf-token': await csrf() });
    assert.equal(answer.status, 404);
    assert.equal(answer.body.name, 'not_found');
    const theirs = await fetch(`${server.url}/api-keys`, { headers: { authorization: `Bearer ${otherKey}` } }).then((r) => r.json());
    assert.ok(theirs.data.some((k: { id: string }) => k.id === created.id));
  });

  it('deletes the key after a confirmation; its token stops working', async () => {
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Delete the key from the dashboard' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this key?' });
    await dialog.waitFor();
    await screenshot(page, '07-delete-key-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('cell', { name: 'from the dashboard', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete the key from the dashboard' }).click();
    await dialog.getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('No keys yet').waitFor();
    const refused = await new Resend(token, { baseUrl: server.url }).apiKeys.list();
    assert.equal(refused.error?.name, 'invalid_api_key');
  });

  it('reads at phone width', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${server.url}/dashboard/domains`);
    await phone.getByRole('link', { name: 'dash.postline.test' }).waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
    await screenshot(phone, '08-domains-phone');
    await phone.close();
  });

  it('signs out: the session is deleted and its cookie refused', async () => {
    const [cookie] = await context.cookies();
    assert.equal(cookie?.name, 'postline_session');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Postline' }).waitFor();
    await screenshot(page, '09-signed-out');
    const res = await fetch(`${server.url}/dashboard/api/session`, { headers: { cookie: `postline_session=${cookie.value}` } });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).name, 'invalid_session');
  });

  it('prints a one-time set-password link for `postline users create`', async () => {
    const made = await runCli(['users', 'create', '--account', 'Other', 'second@dash.postline.test'], env);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /\/dashboard\/set-password#token=[A-Za-z0-9_-]{43}\n$/);
    const again = await runCli(['users', 'create', '--account', 'Other', 'second@dash.postline.test'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists/);
  });

  it('throttles sign-in attempts: the 11th in a minute answers 429', async () => {
    const attempt = () =>
      fetch(`${server.url}/dashboard/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@dash.postline.test', password: 'guess' }),
      });
    // The attempts above count too: whatever is left of this minute's ten, then one more.
    let last: Response | undefined;
    for (let i = 0; i < 25; i++) {
      last = await attempt();
      if (last.status === 429) break;
      assert.equal(last.status, 401);
    }
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
  });
});

// On a Postline of its own, started with a short idle timeout: the tests above keep the default,
// so a busy machine cannot expire their session mid-file (issue 37).
describe('dashboard: a session idle for longer than POSTLINE_DASHBOARD_IDLE_TIMEOUT', () => {
  let t: TestPostline;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_DASHBOARD_IDLE_TIMEOUT: `${IDLE_SECONDS}s` } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', EMAIL);
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('is refused, and the page asks to sign in again, then returns where it was', async () => {
    const page = await context.newPage();
    await page.goto(`${t.url}/dashboard/api-keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'postline_session')!;
    // The clock itself: nothing is asked of Postline for longer than the idle timeout.
    await new Promise((r) => setTimeout(r, (IDLE_SECONDS + 1) * 1000));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { name: 'Sign in to Postline' }).waitFor();
    assert.equal(new URL(page.url()).search, '?next=%2Fdomains');
    await screenshot(page, '10-idle-session-ended');
    const late = await fetch(`${t.url}/domains`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    assert.equal(late.status, 401);
    assert.equal((await late.json()).name, 'invalid_session');

    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/domains');
  });
});
