// Accepting a small submission parses only its header section: its html and text are not
// stored beside the message (emails.bodies_in_message, 0020) and GET /emails/:id reads them
// from it, the same as if they had been stored. A message with a Resend-Idempotency-Key (whose
// fingerprint compares the bodies) and a message over 64 KB (parsed whole, off the event loop)
// store them at accept as before; either way GET shows the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, queuedId, startSmtpTest, transport } from './support.js';

describe('SMTP: html and text read from the stored message', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  const stored = async (id: string) =>
    (await t.sql(`SELECT html, text, bodies_in_message FROM emails WHERE id = $1`, [id]))[0] as {
      html: string | null;
      text: string | null;
      bodies_in_message: boolean;
    };

  const send = async (message: Record<string, unknown>) =>
    queuedId((await transport(t).sendMail({ from: FROM, to: 'alice@example.net', ...message })).response);
  const shown = async (id: string) => {
    const { data, error } = await t.resend.emails.get(id);
    assert.equal(error, null, JSON.stringify(error));
    return { html: data!.html, text: data!.text };
  };

  it('shows the html and text of a small message as if they had been stored at accept', async () => {
    const message = { subject: 'Both parts', text: 'Plain caf\u00e9\nsecond line', html: `${'<p>Caf\u00e9 <b>ol\u00e9</b> \u2014 '.padEnd(2000, 'x')}</p>` };
    const small = await send(message);
    assert.deepEqual({ ...(await stored(small)) }, { html: null, text: null, bodies_in_message: true });
    // The same message with an idempotency key is parsed whole at accept and stores both.
    const keyed = await send({ ...message, headers: { 'Resend-Idempotency-Key': 'bodies-1' } });
    const kept = await stored(keyed);
    assert.equal(kept.bodies_in_message, false);
    assert.match(kept.html!, /^<p>Caf\u00e9 <b>ol\u00e9<\/b> \u2014 x+<\/p>\n?$/);
    assert.match(kept.text!, /^Plain caf\u00e9\r?\nsecond line\r?\n?$/);
    assert.deepEqual(await shown(small), { html: kept.html, text: kept.text });
    assert.deepEqual(await shown(keyed), { html: kept.html, text: kept.text });
  });

  it('shows null for a part the message does not have, and U+FFFD for a NUL in a text part', async () => {
    const htmlOnly = await shown(await send({ subject: 'Html only', html: '<p>Only</p>' }));
    assert.match(htmlOnly.html!, /^<p>Only<\/p>\n?$/);
    assert.equal(htmlOnly.text, null);
    const withNul = await shown(await send({ subject: 'NUL', text: 'before\u0000after', textEncoding: 'base64' }));
    assert.match(withNul.text!, /^before\uFFFDafter\n?$/);
  });

  it('stores html and text at accept for a message over 64 KB', async () => {
    const text = 'A long line of text for a large message.\n'.repeat(2000); // ~82 KB
    const large = await send({ subject: 'Large', text });
    const kept = await stored(large);
    assert.equal(kept.bodies_in_message, false);
    assert.equal(kept.html, null);
    assert.equal(kept.text!.replace(/\r\n/g, '\n').trimEnd(), text.trimEnd());
    assert.deepEqual(await shown(large), { html: null, text: kept.text });
  });
});
