// The dashboard's shell (issue 16, "Speed": ≤ 300 KB compressed): what a browser fetches from
// Postline to show the first page after sign-in, the Overview (HTML, JS, CSS, fonts, images;
// not the API's JSON), as bytes on the wire. Headless chromium against a real `postline
// start` on the embedded database, signed in through the set-up link it logs.
//
//   npx tsx bench/dashboard-shell.ts
import { PostlineProcess, processStorage } from '../test/cli/postline-process.js';
import { launchChromium } from '../test/dashboard/browser.js';

const storage = await processStorage();
const server = await PostlineProcess.start(storage.env);
const browser = await launchChromium();
try {
  const page = await (await browser.newContext()).newPage();
  const link = server.lines.map((l) => /(\/dashboard\/set-password#token=[A-Za-z0-9_-]+&setup=1)/.exec(l)?.[1]).find(Boolean);
  if (!link) throw new Error('no set-up link in the log');
  await page.goto(server.url + link);
  await page.getByLabel('Email address').fill('bench@postline.test');
  await page.getByLabel('New password').fill('correct horse battery');
  await page.getByLabel('Repeat the password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();

  // A fresh load of the first page with an empty cache (a new context holding only the session).
  const fresh = await (await browser.newContext({ storageState: await page.context().storageState() })).newPage();
  const files: { url: string; wire: number; body: number }[] = [];
  fresh.on('requestfinished', async (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/dashboard') || url.pathname.startsWith('/dashboard/api/')) return;
    const sizes = await request.sizes();
    const response = await request.response();
    files.push({ url: url.pathname, wire: sizes.responseBodySize, body: (await response?.body())?.length ?? 0 });
  });
  await fresh.goto(`${server.url}/dashboard/`);
  await fresh.getByRole('heading', { name: 'Overview' }).waitFor();
  await fresh.waitForLoadState('networkidle');

  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const f of files.sort((a, b) => b.wire - a.wire))
    console.log(`${f.url.padEnd(60)} ${kb(f.wire).padStart(10)} on the wire, ${kb(f.body).padStart(10)} decoded`);
  const wire = files.reduce((n, f) => n + f.wire, 0);
  const body = files.reduce((n, f) => n + f.body, 0);
  console.log(`\nshell of the first page (Overview): ${kb(wire)} on the wire (${kb(body)} decoded), ${files.length} files; target ≤ 300 KB`);
} finally {
  await browser.close();
  await server.stop();
  await storage.remove();
}
