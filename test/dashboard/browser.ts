// Debian's chromium driven by playwright-core, for the dashboard's tests; and where their
// screenshots go (test-artifacts/dashboard/, printed, kept after the run to be looked at).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import axe from 'axe-core';
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Page, type Response } from 'playwright-core';
import type { Db } from '../../src/db/database.js';
import { createUser } from '../../src/users/users.js';
import { repoRoot } from '../cli/postline-process.js';

export const artifactsDir = path.join(repoRoot, 'test-artifacts', 'dashboard');

/** Fails (never skips) without a browser: the dashboard would go untested. */
export async function launchChromium(): Promise<Browser> {
  let executablePath = process.env.CHROMIUM_PATH;
  if (!executablePath) {
    try {
      executablePath = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
    } catch {
      throw new Error('chromium not found: install it (`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM_PATH');
    }
  }
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}

/**
 * A full-page shot. Chromium paints a frame of another process (the mail preview: sandboxed
 * without same-origin) only where it lies inside the viewport, so a loaded preview below the fold
 * came out blank (emails-05b-return-path); the viewport is made as tall as the page for the shot.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  await fs.mkdir(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name}.png`);
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const stretch = viewport !== null && height > viewport.height;
  if (stretch) await page.setViewportSize({ width: viewport.width, height });
  try {
    await page.screenshot({ path: file, fullPage: true });
  } finally {
    if (stretch) await page.setViewportSize(viewport);
  }
  return file;
}

/**
 * Signs `context` in as a new dashboard user of the account `account` (by name or id): the
 * user is made as `postline users create` makes it, and its one-time link is used through the
 * API, which sets the session cookie in the browser context. From then on, whatever the
 * dashboard's own pages do against their Content-Security-Policy is recorded, and
 * assertAccessible fails on it (the mail preview's frame is left out: mail breaking its own
 * policy is what that policy is for).
 */
export async function signInNewUser(context: BrowserContext, postline: { url: string; db: Db }, account: string, email: string): Promise<void> {
  await context.addInitScript(() => {
    if (window !== window.top) return;
    const seen: string[] = [];
    (window as { __policyViolations?: string[] }).__policyViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`),
    );
  });
  const { token } = await createUser(postline.db, account, email);
  const res = await context.request.post(`${postline.url}/dashboard/api/set-password`, { data: { token, password: 'correct horse battery' } });
  if (res.status() !== 200) throw new Error(`set-password answered ${res.status()}: ${await res.text()}`);
}

/**
 * A new browser's page, signed in as a new user of `postline`, for the pages that show hostile
 * mail: it keeps the message of every dialog a script opened (`dialogs`, each dismissed), and
 * `pwned` reads the `window.__pwned` that the test payloads set when they run. Downloads allowed.
 */
export async function openWatchedPage(postline: { url: string; db: Db }, email: string) {
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await signInNewUser(context, postline, 'Default', email);
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { browser, page, dialogs, pwned: () => page.evaluate(() => (window as { __pwned?: unknown }).__pwned) };
}

/**
 * An axe-core scan of the page as it stands (WCAG 2.1 A and AA rules), after the page's
 * policy violations (signInNewUser); fails listing each
 * violation with the elements it found. axe is evaluated through the browser's debugging
 * protocol, which the dashboard's Content-Security-Policy does not govern, so the page under
 * test keeps its real policy.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const violated = await page.evaluate(() => (window as { __policyViolations?: string[] }).__policyViolations ?? []);
  if (violated.length > 0) throw new Error(`${what}: the dashboard broke its own Content-Security-Policy:\n  ${violated.join('\n  ')}`);
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v: any) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n: any) => n.target.join(' ')).join('\n    ')}`);
  });
  if (violations.length > 0) throw new Error(`${what}: ${violations.length} accessibility violation(s):\n  ${violations.join('\n  ')}`);
}

/**
 * What `page` logs as failed from now on: its console errors (chromium logs every answer of 400
 * or more to a fetch as one) and those answers themselves, by method and path. For pages whose
 * ordinary use must log nothing of the kind.
 */
export function watchFailures(page: Page): { failures: string[]; stop: () => void } {
  const failures: string[] = [];
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error') failures.push(`console: ${message.text()}`);
  };
  const onResponse = (response: Response) => {
    if (response.status() >= 400) failures.push(`${response.request().method()} ${new URL(response.url()).pathname} → ${response.status()}`);
  };
  page.on('console', onConsole);
  page.on('response', onResponse);
  return {
    failures,
    stop() {
      page.off('console', onConsole);
      page.off('response', onResponse);
    },
  };
}

/** A reload asks the browser's own question (beforeunload, unsaved changes): dismissed, the page stays as it was. */
export async function dismissReloadQuestion(page: Page): Promise<void> {
  const asked = page.waitForEvent('dialog');
  page.reload().catch(() => undefined);
  const dialog = await asked;
  assert.equal(dialog.type(), 'beforeunload');
  await dialog.dismiss();
}
