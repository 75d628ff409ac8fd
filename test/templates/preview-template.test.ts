// POST /templates/preview: a draft rendered with sample values by the renderer sending uses
// (the dashboard's live preview). It agrees with what an email sent with the published
// template contains, and refuses what saving or sending would refuse, with the same messages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('previewing a template draft', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  const preview = (body: unknown) => rawRequest(t, 'POST', '/templates/preview', { body: body as object });
  const content = {
    subject: 'Hi {{{NAME}}}',
    html: '<p>Hi {{{NAME}}}, you owe {{{PRICE}}} ({{{NOTE|no note}}})</p>',
    text: 'Hi {{{NAME}}}: {{{PRICE}}}',
    variables: [
      { key: 'NAME', type: 'string', fallback_value: 'there' },
      { key: 'PRICE', type: 'number', fallback_value: 25 },
      { key: 'NOTE', type: 'string' },
    ],
  };

  it('renders with the fallbacks, then with sample values (escaped in html only)', async () => {
    const fallbacks = await preview(content);
    assert.equal(fallbacks.status, 200, JSON.stringify(fallbacks.body));
    assert.deepEqual(fallbacks.body, {
      object: 'template_preview',
      subject: 'Hi there',
      html: '<p>Hi there, you owe 25 (no note)</p>',
      text: 'Hi there: 25',
    });
    const samples = await preview({ ...content, values: { NAME: 'Ann & <Bob>', PRICE: 7.5, NOTE: 'paid' } });
    assert.equal(samples.status, 200);
    assert.deepEqual(samples.body, {
      object: 'template_preview',
      subject: 'Hi Ann & <Bob>',
      html: '<p>Hi Ann &amp; &lt;Bob&gt;, you owe 7.5 (paid)</p>',
      text: 'Hi Ann & <Bob>: 7.5',
    });
    const bare = await preview({ html: '<p>Plain</p>' });
    assert.deepEqual(bare.body, { object: 'template_preview', subject: null, html: '<p>Plain</p>', text: null });
  });

  it('shows exactly what an email sent with the published template contains', async () => {
    const values = { NAME: 'Zoë "Z" <z@x>', PRICE: 12 };
    const created = await t.resend.templates.create({
      name: 'Invoice',
      from: 'billing@acme.test',
      ...content,
      variables: content.variables.map((v) => ({ key: v.key, type: v.type, fallbackValue: v.fallback_value })) as any,
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    await t.resend.templates.publish(created.data!.id);
    const sent = await t.resend.emails.send({ to: 'ann@example.org', template: { id: created.data!.id, variables: values } } as any);
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = (await t.resend.emails.get(sent.data!.id)).data!;
    const shown = (await preview({ ...content, values })).body;
    assert.equal(shown.html, email.html);
    assert.equal(shown.text, email.text);
    assert.equal(shown.subject, email.subject);
  });

  it('refuses what saving or sending refuses, 422 with the same messages', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ subject: 'x' }, 'missing_required_field', /html/],
      [{ html: '   ' }, 'validation_error', /`html` field must not be empty/],
      [{ html: '<p>{{{WHO}}}</p>' }, 'validation_error', /Variable 'WHO' is used in the template but not defined/],
      [{ ...content, values: { PRICE: 'ten' } }, 'validation_error', /`PRICE` must be a number/],
      [{ ...content, values: ['NAME'] }, 'validation_error', /`values` field must be an object/],
      [{ ...content, values: { NAME: { a: 1 } } }, 'validation_error', /must be a string or a number/],
      [{ html: '<p>{{{WHO}}}</p>', variables: [{ key: 'WHO', type: 'string' }] }, 'validation_error', /Missing value for the template variable `WHO`/],
      [{ html: '<p>x</p>', variables: [{ key: 'EMAIL', type: 'string' }] }, 'validation_error', /reserved/],
      [{ html: '<p>x</p>', name: 'Unexpected' }, 'validation_error', /name/],
      [{ html: 42 }, 'validation_error', /`html` field must be a string/],
      [{ html: 'x', subject: 'two\nlines' }, 'validation_error', /subject/],
    ];
    for (const [body, name, message] of cases) {
      const res = await preview(body);
      assert.equal(res.status, 422, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.equal(res.body.name, name, JSON.stringify(res.body));
      assert.equal(res.body.statusCode, 422);
      assert.match(res.body.message, message);
    }
    const notJson = await rawRequest(t, 'POST', '/templates/preview', { body: '[1]' });
    assert.equal(notJson.status, 422, JSON.stringify(notJson.body));
  });

  it('needs a full-access key, and no key at all is refused', async () => {
    const key = await t.resend.apiKeys.create({ name: 'sending', permission: 'sending_access' });
    const sending = await rawRequest(t, 'POST', '/templates/preview', { body: content, auth: key.data!.token });
    assert.equal(sending.status, 401);
    assert.equal(sending.body.name, 'restricted_api_key');
    const none = await rawRequest(t, 'POST', '/templates/preview', { body: content, auth: null });
    assert.equal(none.status, 401);
  });
});
