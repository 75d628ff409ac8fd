import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreateBatchOptions } from 'resend';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('sending with a template', () => {
  let t: TestPostline;
  let orderId: string;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.sink.test', priority: 10 }] });
    t.dns.set('mx.sink.test', { A: ['127.0.0.1'] });
    const order = await t.resend.templates
      .create({
        name: 'Order',
        alias: 'order',
        from: 'Acme Store <store@acme.test>',
        subject: 'Your order of {{{PRODUCT}}} & more',
        replyTo: 'support@acme.test',
        html: '<p>Hi {{{NAME|there}}},</p><p>{{{PRODUCT}}} costs {{{PRICE}}} in {{{CURRENCY}}}.</p>',
        text: 'Hi {{{NAME|there}}}, {{{PRODUCT}}} costs {{{PRICE}}} {{{CURRENCY}}}.',
        variables: [
          { key: 'NAME', type: 'string' },
          { key: 'PRODUCT', type: 'string' },
          { key: 'PRICE', type: 'number', fallbackValue: 25 },
          { key: 'CURRENCY', type: 'string', fallbackValue: 'EUR' },
        ],
      })
      .publish();
    assert.equal(order.error, null, JSON.stringify(order.error));
    orderId = order.data!.id;
  });
  after(() => t.stop());

  const emailCount = async () => (await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n as number;

  it('renders the published template with the values sent, inline fallbacks and fallback values, and delivers it', async () => {
    const sent = await t.resend.emails.send({
      to: 'ann@example.org',
      template: { id: 'order', variables: { PRODUCT: 'Vintage Macintosh', PRICE: 499 } },
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(email.from, 'Acme Store <store@acme.test>', "the template's from");
    assert.equal(email.subject, 'Your order of Vintage Macintosh & more', 'subject rendered, not HTML-escaped');
    assert.deepEqual(email.reply_to, ['support@acme.test']);
    assert.equal(email.html, '<p>Hi there,</p><p>Vintage Macintosh costs 499 in EUR.</p>');
    assert.equal(email.text, 'Hi there, Vintage Macintosh costs 499 EUR.');

    // Found by its Message-ID: it may have been delivered already, before or after earlier mail.
    const messageId = email.message_id!.replace(/^<|>$/g, '');
    const raw = await eventually(
      async () => t.sink.messages.map((m) => m.raw.toString()).find((r) => r.includes(`Message-ID: <${messageId}>`)),
      15_000,
      `the message ${messageId} at the sink`,
    );
    assert.match(raw, /^Subject: Your order of Vintage Macintosh & more\r$/m);
    assert.match(raw, /Vintage Macintosh costs 499 in EUR/);
  });

  it('escapes values in html (a script stays text) and leaves them as they are in text', async () => {
    const script = '<script>alert("x")</script> & \'quotes\'';
    const sent = await t.resend.emails.send({
      to: 'ann@example.org',
      template: { id: orderId, variables: { NAME: script, PRODUCT: 'Box' } },
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(email.html, '<p>Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;,</p><p>Box costs 25 in EUR.</p>');
    assert.doesNotMatch(email.html!, /<script>/);
    assert.equal(email.text, `Hi ${script}, Box costs 25 EUR.`);
  });

  it("lets the payload's from, subject and reply_to beat the template's", async () => {
    const sent = await t.resend.emails.send({
      from: 'Sales <sales@acme.test>',
      to: 'ann@example.org',
      subject: 'Custom subject {{{PRODUCT}}}',
      replyTo: ['a@acme.test', 'b@acme.test'],
      template: { id: 'order', variables: { PRODUCT: 'Box' } },
    });
    assert.equal(sent.error, null);
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(email.from, 'Sales <sales@acme.test>');
    assert.equal(email.subject, 'Custom subject {{{PRODUCT}}}', "the payload's subject is used as given");
    assert.deepEqual(email.reply_to, ['a@acme.test', 'b@acme.test']);
  });

  it('generates the text part from the rendered html when the template has no text', async () => {
    const { data } = await t.resend.templates
      .create({
        name: 'No text',
        subject: 'S',
        from: 'hello@acme.test',
        html: '<h1>Hello {{{WHO}}}</h1><p>Bye.</p>',
        variables: [{ key: 'WHO', type: 'string' }],
      })
      .publish();
    const sent = await t.resend.emails.send({ to: 'ann@example.org', template: { id: data!.id, variables: { WHO: 'Ann' } } });
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    assert.equal(email.html, '<h1>Hello Ann</h1><p>Bye.</p>');
    assert.match(email.text!, /HELLO ANN/);
    assert.match(email.text!, /Bye\./);
  });

  it('refuses each bad use with a clear error and writes nothing', async () => {
    const n0 = await emailCount();
    const send = (body: object) => rawRequest(t, 'POST', '/emails', { body: { to: 'ann@example.org', ...body } });
    const expect = async (body: object, status: number, name: string, message: string | RegExp) => {
      const res = await send(body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.name, name);
      if (typeof message === 'string') assert.equal(res.body.message, message);
      else assert.match(res.body.message, message);
    };
    const product = { PRODUCT: 'Box' };
    // Rule 1: no html, text or react beside a template.
    for (const field of ['html', 'text']) {
      await expect(
        { [field]: '<p>x</p>', template: { id: 'order', variables: product } },
        422,
        'validation_error',
        `The \`${field}\` field must be left out when a \`template\` is given, not "<p>x</p>".`,
      );
    }
    await expect(
      { react: '<p>x</p>', template: { id: 'order', variables: product } },
      422,
      'validation_error',
      'The `react` field must be rendered to `html` by the SDK before sending, not "<p>x</p>".',
    );
    // Unknown template, a draft-only one.
    await expect({ template: { id: 'no-such-template' } }, 404, 'not_found', 'Template not found');
    await expect({ template: { id: '00000000-0000-4000-8000-000000000000' } }, 404, 'not_found', 'Template not found');
    await t.resend.templates.create({ name: 'Draft', alias: 'draft-only', from: 'hello@acme.test', subject: 's', html: '<p>x</p>' });
    await expect({ template: { id: 'draft-only' } }, 422, 'validation_error', /`draft-only` has not been published/);
    // Rule 3: a variable with no value and no fallback.
    await expect({ template: { id: 'order' } }, 422, 'validation_error', /`PRODUCT`/);
    // Values: at most 2000 characters, strings or numbers, numbers for number variables.
    await expect(
      { template: { id: 'order', variables: { PRODUCT: 'x'.repeat(2001) } } },
      422,
      'validation_error',
      'The `template.variables.PRODUCT` field must be at most 2000 characters.',
    );
    await expect(
      { template: { id: 'order', variables: { PRODUCT: true } } },
      422,
      'validation_error',
      'The `template.variables.PRODUCT` field must be a string or a number.',
    );
    await expect(
      { template: { id: 'order', variables: { PRODUCT: { a: 1 } } } },
      422,
      'validation_error',
      'The `template.variables.PRODUCT` field must be a string or a number.',
    );
    await expect({ template: { id: 'order', variables: { ...product, PRICE: 'cheap' } } }, 422, 'validation_error', /`PRICE` must be a number/);
    // A value that would add a header line through the subject.
    await expect(
      { template: { id: 'order', variables: { PRODUCT: 'Box\r\nBcc: evil@example.org' } } },
      422,
      'validation_error',
      /`subject` field must not contain line breaks/,
    );
    // The template object itself.
    await expect({ template: 'order' }, 422, 'validation_error', /`template` field must be an object/);
    await expect({ template: {} }, 422, 'missing_required_field', 'Missing `template.id` field.');
    await expect({ template: { id: 'order', vars: {} } }, 422, 'validation_error', 'Unknown field `template.vars`.');
    await expect({ template: { id: 'order', variables: [] } }, 422, 'validation_error', /`template.variables` field must be an object/);
    // Rule 2: from and subject must come from the payload or the template.
    const bare = await t.resend.templates.create({ name: 'Bare', alias: 'bare', html: '<p>x</p>' }).publish();
    assert.equal(bare.error, null);
    await expect({ template: { id: 'bare' } }, 422, 'missing_required_field', 'Missing `from` field.');
    await expect({ from: 'hello@acme.test', template: { id: 'bare' } }, 422, 'missing_required_field', 'Missing `subject` field.');
    // The rest of the email is validated as usual.
    await expect({ template: { id: 'order', variables: product }, tags: 'x' }, 422, 'validation_error', /`tags` field must be an array/);
    await expect({ template: { id: 'order', variables: product }, foo: 1 }, 422, 'validation_error', 'Unknown field `foo`.');
    assert.equal(await emailCount(), n0);

    // The SDK sees the same errors.
    const sdk = await t.resend.emails.send({ to: 'ann@example.org', template: { id: 'order', variables: { PRODUCT: 'x'.repeat(2001) } } });
    assert.equal(sdk.error?.statusCode, 422);
    assert.equal(sdk.error?.name, 'validation_error');
  });

  it('renders templates in batch items: strict rejects the batch, permissive reports the item', async () => {
    const items: CreateBatchOptions = [
      { to: 'a@example.org', template: { id: 'order', variables: { PRODUCT: 'One' } } },
      { from: 'hello@acme.test', to: 'b@example.org', subject: 'Plain', html: '<p>plain</p>' },
      { to: 'c@example.org', template: { id: orderId, variables: { PRODUCT: 'Three', NAME: 'Cy' } } },
    ];
    const ok = await t.resend.batch.send(items);
    assert.equal(ok.error, null, JSON.stringify(ok.error));
    const ids = ok.data!.data.map((d) => d.id);
    assert.equal((await t.resend.emails.get(ids[0]!)).data!.subject, 'Your order of One & more');
    assert.equal((await t.resend.emails.get(ids[1]!)).data!.subject, 'Plain');
    assert.equal((await t.resend.emails.get(ids[2]!)).data!.html, '<p>Hi Cy,</p><p>Three costs 25 in EUR.</p>');

    const n0 = await emailCount();
    const bad: CreateBatchOptions = [items[0]!, { to: 'x@example.org', template: { id: 'missing' } }, { to: 'y@example.org', template: { id: 'order' } }];
    const strict = await t.resend.batch.send(bad);
    assert.deepEqual(strict.error, { statusCode: 404, message: 'Template not found', name: 'not_found' });
    assert.equal(await emailCount(), n0);

    const permissive = await t.resend.batch.send(bad, { batchValidation: 'permissive' });
    assert.equal(permissive.error, null);
    assert.equal(permissive.data!.data.length, 1);
    assert.deepEqual(
      permissive.data!.errors!.map((e) => e.index),
      [1, 2],
    );
    assert.equal(permissive.data!.errors![0]!.message, 'Template not found');
    assert.match(permissive.data!.errors![1]!.message, /`PRODUCT`/);
    assert.equal(await emailCount(), n0 + 1);
  });
});
