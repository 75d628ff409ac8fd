import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { deliverInbound, eventually, startInboundTest } from './support.js';

// postal-mime's cost is per line: 300,000 short lines are seconds of parsing. Large inbound
// messages are parsed in the SMTP server's parser thread, so the process keeps serving while
// one is taken in, and when its attachments are downloaded (each download parses it again).
describe('inbound: a large message is parsed off the event loop', () => {
  let t: TestPostline;
  const LINES = 300_000;
  const attachment = crypto.randomBytes(256 * 1024);
  let raw: Buffer;

  before(async () => {
    t = await startInboundTest();
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
    // Short lines (a log, a CSV): the parser's cost is per line, the rest of the work per byte.
    raw = Buffer.from(
      [
        'From: reports@remote.test',
        'To: support@inbox.test',
        'Subject: The big report',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain; charset=us-ascii',
        '',
        ...Array.from({ length: LINES }, (_, i) => String(i)),
        '--b',
        'Content-Type: application/octet-stream; name="data.bin"',
        'Content-Disposition: attachment; filename="data.bin"',
        'Content-Transfer-Encoding: base64',
        '',
        attachment.toString('base64').replace(/.{76}/g, '$&\r\n'),
        '--b--',
        '',
      ].join('\r\n'),
    );
  });
  after(() => t?.stop());

  /**
   * How long one parse of the message holds this process's event loop, on this machine under
   * this run's load: what an API answer would wait for if Postline parsed on the event loop.
   * The limits below are half of it, so a slow machine slows both sides alike.
   */
  let onLoopParseMs: number;
  before(async () => {
    const started = performance.now();
    await PostalMime.parse(raw);
    onLoopParseMs = performance.now() - started;
  });

  /**
   * Runs `work` while asking the API for something small every 20 ms; returns the longest time
   * from one answer to the next (ms). The test and Postline share this process's
   * event loop: a parse that held it would show as one long gap.
   */
  async function slowestAnswerDuring(work: Promise<unknown>): Promise<number> {
    let done = false;
    let slowest = 0;
    const probe = (async () => {
      let previous = performance.now();
      while (!done) {
        const res = await fetch(`${t.url}/domains`, { headers: { authorization: `Bearer ${t.apiKey}` } });
        await res.arrayBuffer();
        const now = performance.now();
        slowest = Math.max(slowest, now - previous);
        previous = now;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      await work;
    } finally {
      done = true;
      await probe;
    }
    return slowest;
  }

  it('keeps answering the API while it is received, and stores it whole', async () => {
    const slowest = await slowestAnswerDuring(deliverInbound(t, raw, { mailFrom: 'reports@remote.test', rcptTo: ['support@inbox.test'] }));
    // Parsed on the event loop, one API answer would wait for the whole parse (seconds here).
    assert.ok(
      slowest < onLoopParseMs / 2,
      `the API went unanswered for ${Math.round(slowest)} ms while the message was taken in (a parse: ${Math.round(onLoopParseMs)} ms)`,
    );

    const listed = await eventually(async () => (await t.resend.emails.receiving.list()).data?.data[0]);
    const { data: email } = await t.resend.emails.receiving.get(listed.id);
    assert.equal(email!.subject, 'The big report');
    assert.equal(email!.text!.trimEnd().split('\n').length, LINES);
    assert.ok(email!.text!.trimEnd().endsWith(`\n${LINES - 1}`));
    assert.equal(email!.attachments.length, 1);
    assert.equal(email!.attachments[0]!.size, attachment.length);
  });

  it('serves its attachment, parsed again off the event loop, byte for byte', async () => {
    const id = (await t.resend.emails.receiving.list()).data!.data[0]!.id;
    const [listed] = (await t.resend.emails.receiving.attachments.list({ emailId: id })).data!.data;
    let bytes: Buffer | undefined;
    const slowest = await slowestAnswerDuring(
      (async () => {
        bytes = Buffer.from(await (await fetch(listed!.download_url)).arrayBuffer());
      })(),
    );
    assert.ok(bytes!.equals(attachment));
    assert.ok(
      slowest < onLoopParseMs / 2,
      `the API went unanswered for ${Math.round(slowest)} ms during the download (a parse: ${Math.round(onLoopParseMs)} ms)`,
    );
  });
});
