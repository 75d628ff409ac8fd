// A broadcast's content rendered per contact, without a database: contact values, inline
// fallbacks and the empty string for a tag with neither; values escaped in html only; the
// preview text placed as a hidden block after <body>; one renderer serving many contacts
// without one contact's values leaking into the next; and which tags a send refuses, against
// an account's property keys given by an in-memory stand-in for the query.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMergeTags, contentRenderer, UNSUBSCRIBE_TAGS, type BroadcastContent } from '../../src/broadcasts/merge-tags.js';
import type { Queryable } from '../../src/db/database.js';

const PREVIEW = (text: string) => `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">${text}</div>`;
const content = (c: Partial<BroadcastContent>): BroadcastContent => ({ subject: 'S', html: null, text: null, previewText: null, ...c });

describe('unit: contentRenderer', () => {
  it("renders the contact's values into subject, html, text and preview text", () => {
    const render = contentRenderer({
      subject: 'Hello {{{FIRST_NAME|friend}}}',
      html: '<html><body><p>Hi {{{FIRST_NAME|there}}} from {{{company}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></body></html>',
      text: 'Hi {{{FIRST_NAME}}} ({{{EMAIL}}})',
      previewText: 'What is new at {{{company}}}',
    });
    assert.deepEqual(render({ FIRST_NAME: 'Ann', EMAIL: 'ann@example.org', company: 'Acme', RESEND_UNSUBSCRIBE_URL: 'https://p.test/u/1' }), {
      subject: 'Hello Ann',
      html: `<html><body>${PREVIEW('What is new at Acme')}<p>Hi Ann from Acme</p><a href="https://p.test/u/1">Unsubscribe</a></body></html>`,
      text: 'Hi Ann (ann@example.org)',
      previewText: 'What is new at Acme',
    });
  });

  it('renders the inline fallback for a missing value, else the empty string, never an error', () => {
    const render = contentRenderer(content({ subject: 'Hello {{{FIRST_NAME|friend}}}', text: '[{{{FIRST_NAME}}}] [{{{plan}}}] [{{{LAST_NAME|}}}]' }));
    assert.deepEqual(render({}), { subject: 'Hello friend', html: null, text: '[] [] []', previewText: null });
  });

  it('uses an empty value as given rather than the fallback', () => {
    assert.equal(contentRenderer(content({ subject: 'Hi {{{FIRST_NAME|friend}}}' }))({ FIRST_NAME: '' }).subject, 'Hi ');
  });

  it('renders numbers', () => {
    assert.equal(contentRenderer(content({ subject: '{{{points}}} points' }))({ points: 0 }).subject, '0 points');
  });

  it('escapes values in html and in the preview block, and leaves subject, text and previewText unescaped', () => {
    const render = contentRenderer(
      content({ subject: '{{{company}}}', html: '<body><p>{{{company}}}</p></body>', text: '{{{company}}}', previewText: '{{{company}}} & "more"' }),
    );
    assert.deepEqual(render({ company: `<b>A&B</b> 'x'` }), {
      subject: `<b>A&B</b> 'x'`,
      html: `<body>${PREVIEW('&lt;b&gt;A&amp;B&lt;/b&gt; &#39;x&#39; &amp; &quot;more&quot;')}<p>&lt;b&gt;A&amp;B&lt;/b&gt; &#39;x&#39;</p></body>`,
      text: `<b>A&B</b> 'x'`,
      previewText: `<b>A&B</b> 'x' & "more"`,
    });
  });

  it('escapes & in an unsubscribe URL placed in an href', () => {
    const html = contentRenderer(content({ html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">u</a>' }))({
      RESEND_UNSUBSCRIBE_URL: 'https://p.test/u?a=1&b=2',
    }).html;
    assert.equal(html, '<a href="https://p.test/u?a=1&amp;b=2">u</a>');
  });

  it('passes CR/LF in a value into the subject as it is: the fan-out checks the rendered subject', () => {
    const subject = contentRenderer(content({ subject: 'Hi {{{FIRST_NAME}}}' }))({ FIRST_NAME: 'Ann\r\nBcc: victim@example.org' }).subject;
    assert.equal(subject, 'Hi Ann\r\nBcc: victim@example.org');
  });

  it('keeps unicode values', () => {
    assert.equal(contentRenderer(content({ html: '<p>{{{FIRST_NAME}}}</p>' }))({ FIRST_NAME: 'Zoë 🎉 日本' }).html, '<p>Zoë 🎉 日本</p>');
  });

  it('keeps null parts null and renders an empty subject', () => {
    assert.deepEqual(contentRenderer(content({ subject: '{{{FIRST_NAME}}}' }))({}), { subject: '', html: null, text: null, previewText: null });
  });

  it('does not carry one contact’s values into the next', () => {
    const render = contentRenderer(content({ subject: 'Hi {{{FIRST_NAME|there}}}', text: '{{{plan}}}' }));
    assert.deepEqual(render({ FIRST_NAME: 'Ann', plan: 'pro' }), { subject: 'Hi Ann', html: null, text: 'pro', previewText: null });
    assert.deepEqual(render({}), { subject: 'Hi there', html: null, text: '', previewText: null });
  });
});

describe('unit: the preview text block', () => {
  it('goes right after the <body> tag, attributes and any case included', () => {
    const html = contentRenderer(content({ html: '<html><BODY class="x" style="a:b"><p>x</p></BODY></html>', previewText: 'Pre' }))({}).html;
    assert.equal(html, `<html><BODY class="x" style="a:b">${PREVIEW('Pre')}<p>x</p></BODY></html>`);
  });

  it('goes first when the html has no <body>, and only after a real <body> tag', () => {
    assert.equal(contentRenderer(content({ html: '<p>x</p>', previewText: 'Pre' }))({}).html, `${PREVIEW('Pre')}<p>x</p>`);
    assert.equal(contentRenderer(content({ html: '<bodyx><body>', previewText: 'Pre' }))({}).html, `<bodyx><body>${PREVIEW('Pre')}`);
  });

  it('goes after the first <body> only', () => {
    assert.equal(contentRenderer(content({ html: '<body><body>', previewText: 'P' }))({}).html, `<body>${PREVIEW('P')}<body>`);
  });

  it('is left out when the preview renders empty, and the html is left as it is', () => {
    const render = contentRenderer(content({ html: '<body><p>x</p></body>', previewText: '{{{teaser}}}' }));
    assert.deepEqual(render({}), { subject: 'S', html: '<body><p>x</p></body>', text: null, previewText: '' });
    assert.equal(render({ teaser: 'Soon' }).html, `<body>${PREVIEW('Soon')}<p>x</p></body>`);
    assert.equal(contentRenderer(content({ html: '<p>x</p>', previewText: '' }))({}).html, '<p>x</p>');
  });

  it('is not added to a text-only broadcast', () => {
    assert.deepEqual(contentRenderer(content({ text: 'Hi', previewText: 'Pre' }))({}), { subject: 'S', html: null, text: 'Hi', previewText: 'Pre' });
  });
});

describe('unit: unsubscribe tags', () => {
  it("are Resend's RESEND_UNSUBSCRIBE_URL and the template name UNSUBSCRIBE_URL", () => {
    assert.deepEqual(UNSUBSCRIBE_TAGS, ['RESEND_UNSUBSCRIBE_URL', 'UNSUBSCRIBE_URL']);
  });
});

describe('unit: checkMergeTags', () => {
  /** The account's contact property keys, as the one query checkMergeTags makes would return them. */
  const properties = (keys: string[]) => {
    const calls: unknown[][] = [];
    const q = {
      query: async (sql: string, params?: unknown[]) => {
        calls.push([sql, params]);
        return keys.map((key) => ({ key }));
      },
      one: async () => undefined,
    } as unknown as Queryable;
    return { q, calls };
  };

  it('accepts the contact fields, both unsubscribe tags and the account’s property keys', async () => {
    const { q, calls } = properties(['plan', 'company']);
    await checkMergeTags(
      q,
      'acct-1',
      content({
        subject: '{{{FIRST_NAME}}} {{{LAST_NAME}}}',
        html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">{{{UNSUBSCRIBE_URL}}}</a>',
        text: '{{{EMAIL}}} {{{plan|free}}}',
        previewText: '{{{company}}}',
      }),
    );
    assert.deepEqual(calls, [['SELECT key FROM contact_properties WHERE account_id = $1', ['acct-1']]]);
  });

  it('asks nothing when the content uses no tag', async () => {
    const { q, calls } = properties([]);
    await checkMergeTags(q, 'acct-1', content({ subject: 'Plain', html: '<p>{{not a tag}}</p>' }));
    assert.deepEqual(calls, []);
  });

  it('refuses one unknown tag, and several, naming each once in order of use', async () => {
    const { q } = properties(['plan']);
    await assert.rejects(
      checkMergeTags(q, 'a', content({ subject: 'Hi {{{NICKNAME}}}' })),
      (err: any) =>
        err.errorName === 'validation_error' &&
        err.statusCode === 422 &&
        err.message ===
          'Unknown merge tag `{{{NICKNAME}}}`: use FIRST_NAME, LAST_NAME, EMAIL, RESEND_UNSUBSCRIBE_URL or the key of a contact property (POST /contact-properties).',
    );
    await assert.rejects(
      checkMergeTags(q, 'a', content({ subject: '{{{COUPON}}}', html: '<p>{{{FIRST_NAME}}} {{{plan}}} {{{COUPON}}} {{{coupon_code|none}}}</p>' })),
      (err: any) => err.message.startsWith('Unknown merge tags `{{{COUPON}}}`, `{{{coupon_code}}}`: use FIRST_NAME'),
    );
  });

  it('matches tags case-sensitively: first_name and PLAN are unknown', async () => {
    const { q } = properties(['plan']);
    await assert.rejects(checkMergeTags(q, 'a', content({ text: '{{{first_name}}} {{{PLAN}}}' })), (err: any) =>
      err.message.startsWith('Unknown merge tags `{{{first_name}}}`, `{{{PLAN}}}`:'),
    );
  });
});
