// Attachments given by `path`, fetched at accept time from a loopback HTTP server. Loopback is
// private, so this Postline runs with POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE (the default
// refusal is attachments-path-refused.test.ts).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { closeServer, within } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

const OK = { from: 'hello@acme.test', subject: 'Files', html: '<p>Files</p>' };
const PDF = crypto.randomBytes(200_000);

describe('attachments: fetched from `path`', () => {
  let t: TestPostline;
  let files: http.Server;
  let base: string;
  const requests: string[] = [];
  let bigAborted: Promise<void>;
  let bigAbortedResolve: () => void;

  before(async () => {
    bigAborted = new Promise((resolve) => (bigAbortedResolve = resolve));
    files = http.createServer((req, res) => {
      requests.push(req.url!);
      const url = new URL(req.url!, 'http://x');
      switch (url.pathname) {
        case '/files/report.pdf':
          return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PDF);
        case '/download':
          return res.writeHead(200, { 'content-type': 'image/png; charset=binary' }).end(Buffer.from('PNG'));
        case '/redirect':
          return res.writeHead(302, { location: '/files/report.pdf' }).end();
        case '/loop':
          return res.writeHead(301, { location: '/loop' }).end();
        case '/missing':
          return res.writeHead(404).end('no');
        case '/huge-declared':
          res.writeHead(200, { 'content-length': String(45 * 1024 * 1024) });
          return res.write(Buffer.alloc(1024));
        case '/huge-streamed': {
          // No Content-Length: Postline must stop reading at the cap, not after 100 MB.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(1024 * 1024, 1);
          let sent = 0;
          const pump = () => {
            while (sent < 100 && res.write(chunk)) sent++;
            if (sent >= 100) return res.end();
            res.once('drain', () => (sent++, pump()));
          };
          res.on('close', () => {
            if (sent < 100) bigAbortedResolve();
          });
          return pump();
        }
        case '/slow':
          return; // never answers
        default:
          return res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    t = await startTestPostline({
      env: { POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE: 'true', POSTLINE_ATTACHMENT_FETCH_TIMEOUT: '1s' },
    });
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
    t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
    t.dns.set('files.acme.test', { A: ['127.0.0.1'] });
  });
  after(async () => {
    files.closeAllConnections();
    await closeServer(files);
    await t.stop();
  });

  async function receivedBy(to: string) {
    for (let i = 0; i < 300; i++) {
      const message = t.sink.messages.find((m) => m.to.includes(to));
      if (message) return PostalMime.parse(message.raw);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nothing arrived for ${to}`);
  }

  it('fetches a path (by a host name resolved through POSTLINE_DNS_SERVERS), names and types it', async () => {
    const port = new URL(base).port;
    const { data, error } = await t.resend.emails.send({
      ...OK,
      to: 'ann@example.org',
      attachments: [
        { path: `http://files.acme.test:${port}/files/report.pdf` },
        { path: `${base}/download?x=1` },
        { path: `${base}/redirect`, filename: 'renamed.pdf' },
        { path: `${base}/files/report.pdf`, filename: 'override.bin', contentType: 'application/x-custom' },
      ],
    });
    assert.equal(error, null, JSON.stringify(error));
    const parsed = await receivedBy('ann@example.org');
    const got = parsed.attachments.map((a) => [a.filename, a.mimeType, Buffer.from(a.content as ArrayBuffer).length]);
    assert.deepEqual(got, [
      ['report.pdf', 'application/pdf', PDF.length], // the type comes from the name first
      ['download', 'image/png', 3], // no extension: the server's type
      ['renamed.pdf', 'application/pdf', PDF.length], // a redirect followed
      ['override.bin', 'application/x-custom', PDF.length],
    ]);
    assert.deepEqual(Buffer.from(parsed.attachments[0]!.content as ArrayBuffer), PDF);
    const list = await t.resend.emails.attachments.list({ emailId: data!.id });
    assert.deepEqual(
      list.data!.data.map((a) => [a.filename, a.size]),
      [
        ['report.pdf', PDF.length],
        ['download', 3],
        ['renamed.pdf', PDF.length],
        ['override.bin', PDF.length],
      ],
    );
  });

  async function refused(path: string, message: RegExp) {
    const before = Number((await t.sql('SELECT count(*) AS n FROM emails'))[0].n);
    const { error } = await t.resend.emails.send({ ...OK, to: 'bob@example.org', attachments: [{ path }] });
    assert.equal(error?.statusCode, 422, JSON.stringify(error));
    assert.equal(error?.name, 'invalid_attachment');
    assert.match(error!.message, message);
    assert.equal(Number((await t.sql('SELECT count(*) AS n FROM emails'))[0].n), before, 'nothing was written');
  }

  it('refuses a path that answers an error, redirects forever, is unreachable or does not resolve', async () => {
    await refused(`${base}/missing`, /could not be fetched: the server answered HTTP 404/);
    await refused(`${base}/loop`, /more than 3 redirects/);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await closeServer(closed);
    await refused(`http://127.0.0.1:${closedPort}/x`, /the connection was refused/);
    await refused('http://nowhere.acme.test/x', /could not be resolved|has no address/);
  });

  it('gives up on a path that does not answer in time (POSTLINE_ATTACHMENT_FETCH_TIMEOUT)', async () => {
    const started = Date.now();
    await refused(`${base}/slow`, /timed out/);
    assert.ok(Date.now() - started < 5_000);
  });

  it('stops reading an enormous path at the room the email has left', async () => {
    await refused(`${base}/huge-declared`, /larger than the \d+ MB the email has room for/);
    const started = Date.now();
    await refused(`${base}/huge-streamed`, /larger than the \d+ MB the email has room for/);
    await within(bigAborted, 15_000, 'the download of the 100 MB file to be dropped'); // before the 100 MB were sent
    assert.ok(Date.now() - started < 10_000);
  });
});
