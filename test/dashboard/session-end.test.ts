// How a dashboard session ends, in a real browser (issue 37): Sign out from the Overview, right
// after the set-password flow, lands on the sign-in page with nothing of the account left on
// the screen or in the page's memory (a new document), Back included; a session revoked
// elsewhere, or whose cookie is gone, leads to the sign-in page instead of an API error, and
// signing in again returns to the page (`?next=`), never to another site.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../src/users/users.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot } from './browser.js';

const EMAIL = 'owner@session.postline.test';
const PASSWORD = 'correct horse battery';

describe('dashboard: the end of a session', () => {
  let t: TestPostline;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    t = await startTestPostline();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });
  const path = () => new URL(page.url()).pathname + new URL(page.url()).search;
  /** The sign-in form, filled and sent; the page it leads to is the caller's to wait for. */
  const signIn = async () => {
    await heading('Sign in to Postline').waitFor();
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  /** What of the account the page holds, shown or not. */
  const shownOfAccount = async () => {
    const text = (await page.locator('body').textContent()) ?? '';
    return [EMAIL, 'Default'].filter((s) => text.includes(s));
  };

  it('signs out from the Overview right after setting the password: the sign-in page, nothing of the account left', async () => {
    const { token } = await createUser(t.postline.db, 'Default', EMAIL);
    await page.goto(`${t.url}/dashboard/set-password#token=${token}`);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await heading('Overview').waitFor();
    // Another page and back: Back after signing out has a page of the account to return to.
    await nav('Domains').click();
    await heading('Domains').waitFor();
    await nav('Overview').click();
    await heading('Overview').waitFor();
    await page.getByText(`${EMAIL} · Default`).waitFor();
    await page.evaluate(() => {
      (window as { __signedInDocument?: boolean }).__signedInDocument = true;
    });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to Postline').waitFor();
    assert.equal(path(), '/dashboard/sign-in');
    assert.deepEqual(await shownOfAccount(), []);
    assert.equal(await page.evaluate(() => (window as { __signedInDocument?: boolean }).__signedInDocument), undefined, 'a new document: nothing in memory');
    assert.deepEqual(
      (await context.cookies()).map((c) => c.name),
      [],
      'the session cookie is gone',
    );
    await assertAccessible(page, 'sign-in after signing out');
    await screenshot(page, 'session-01-signed-out');

    // Back shows no page of the account either: it asks to sign in again.
    await page.goBack();
    await heading('Sign in to Postline').waitFor();
    assert.deepEqual(await shownOfAccount(), []);
    assert.equal(await page.evaluate(() => (window as { __signedInDocument?: boolean }).__signedInDocument), undefined);
  });

  it('asks to sign in on a first visit, then shows the page asked for', async () => {
    await page.goto(`${t.url}/dashboard/emails?last_event=bounced`);
    await signIn();
    await heading('Emails').waitFor();
    assert.equal(path(), '/dashboard/emails?last_event=bounced');
    assert.equal(await page.getByLabel('Last event').inputValue(), 'bounced');
  });

  it('leads a session revoked elsewhere to the sign-in page, and back to the page once signed in', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'postline_session')!;
    const csrf = await page.evaluate(async () => (await (await fetch('/dashboard/api/session')).json()).csrf_token as string);
    // Signed out from another tab or device: this browser still holds the cookie.
    const revoked = await fetch(`${t.url}/dashboard/api/sign-out`, {
      method: 'POST',
      headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-csrf-token': csrf },
    });
    assert.equal(revoked.status, 200);
    await nav('Domains').click();
    await heading('Sign in to Postline').waitFor();
    assert.equal(path(), '/dashboard/sign-in?next=%2Fdomains');
    assert.equal(await page.getByRole('alert').count(), 0, 'no error about the ended session');
    await page.getByText('Once signed in, you return to the page you were on.').waitFor();
    await screenshot(page, 'session-02-revoked');
    await signIn();
    await heading('Domains').waitFor();
    assert.equal(path(), '/dashboard/domains');
  });

  it('leads a session whose cookie is gone to the sign-in page, not to "Missing API key"', async () => {
    await context.clearCookies();
    await nav('API keys').click();
    await heading('Sign in to Postline').waitFor();
    assert.equal(path(), '/dashboard/sign-in?next=%2Fapi-keys');
    assert.equal(await page.getByText('Missing API key').count(), 0);
    await signIn();
    await heading('API keys').waitFor();
  });

  it('returns only to a page of the dashboard after signing in: never to another site', async () => {
    for (const next of ['//evil.example/steal', 'https://evil.example/', '/\\evil.example/', '/../api/x']) {
      await context.clearCookies();
      await page.goto(`${t.url}/dashboard/sign-in?next=${encodeURIComponent(next)}`);
      await signIn();
      await heading('Overview').waitFor();
      assert.equal(new URL(page.url()).origin, new URL(t.url).origin, next);
      assert.equal(path(), '/dashboard/', next);
    }
  });
});
