import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const OK = { from: 'hello@acme.test', to: 'ann@example.org', subject: 'Files', html: '<p>Files</p>' };

describe('attachments: malformed ones are refused and nothing is written', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  const count = async () => Number((await t.sql('SELECT count(*) AS n FROM emails'))[0].n);

  async function rejects(attachments: unknown, status: number, name: string, message: string | RegExp) {
    const before = await count();
    const res = await rawRequest(t, 'POST', '/emails', { body: { ...OK, attachments } });
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.statusCode, status);
    assert.equal(res.body.name, name);
    if (typeof message === 'string') assert.equal(res.body.message, message);
    else assert.match(res.body.message, message);
    assert.equal(await count(), before, 'nothing was written');
  }

  it('needs exactly one of content and path (invalid_attachment)', async () => {
    await rejects([{ filename: 'a.txt' }], 422, 'invalid_attachment', 'Attachment must have either a `content` or `path`.');
    await rejects([{ filename: 'a.txt', content: '' }], 422, 'invalid_attachment', 'Attachment must have either a `content` or `path`.');
    await rejects([{ filename: 'a.txt', content: null, path: null }], 422, 'invalid_attachment', 'Attachment must have either a `content` or `path`.');
    await rejects(
      [{ filename: 'a.txt', content: 'aGk=', path: 'https://files.example.com/a.txt' }],
      422,
      'invalid_attachment',
      'Attachment must have either a `content` or `path`, not both.',
    );
  });

  it('refuses content that is not base64 or bytes', async () => {
    for (const content of ['not base64!', 'aGk=aGk=', 'a', 'aGk*', 'aGVsbG8gd29ybGQ===']) {
      await rejects([{ filename: 'a.txt', content }], 422, 'invalid_attachment', 'The `attachments[0].content` field is not valid base64.');
    }
    await rejects([{ filename: 'a.txt', content: 42 }], 422, 'invalid_attachment', 'The `attachments[0].content` field must be a base64 string or a Buffer.');
    await rejects([{ filename: 'a.txt', content: { type: 'Buffer', data: [1, 256] } }], 422, 'invalid_attachment', /must hold bytes/);
    await rejects([{ filename: 'a.txt', content: { type: 'Buffer', data: 'abc' } }], 422, 'invalid_attachment', /base64 string or a Buffer/);
  });

  it('accepts base64 with line breaks and without padding', async () => {
    const wrapped = Buffer.from('x'.repeat(100)).toString('base64').replace(/.{76}/g, '$&\r\n');
    const res = await rawRequest(t, 'POST', '/emails', {
      body: {
        ...OK,
        attachments: [
          { filename: 'a.txt', content: wrapped },
          { filename: 'b.txt', content: 'aGk' },
        ],
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = await t.sql('SELECT size FROM email_attachments WHERE email_id = $1 ORDER BY position', [res.body.id]);
    assert.deepEqual(
      rows.map((r) => Number(r.size)),
      [100, 2],
    );
  });

  it('refuses paths that are not http(s) URLs, bad names, types and content ids, and unknown fields', async () => {
    for (const path of ['file:///etc/passwd', 'ftp://files.example.com/a', 'not a url', 'data:text/plain;base64,aGk=']) {
      await rejects([{ path }], 422, 'invalid_attachment', 'The `attachments[0].path` field must be an http or https URL.');
    }
    await rejects([{ path: 'https://user:secret@files.example.com/a' }], 422, 'invalid_attachment', /must not carry credentials/);
    await rejects([{ filename: 'a\r\nX-Evil: 1', content: 'aGk=' }], 422, 'validation_error', /must not contain line breaks/);
    await rejects([{ filename: 7, content: 'aGk=' }], 422, 'validation_error', 'The `attachments[0].filename` field must be a string.');
    await rejects(
      [{ filename: 'a', content: 'aGk=', content_type: 'text/plain\r\nX-Evil: 1' }],
      422,
      'validation_error',
      /`attachments\[0\].content_type` field must be a media type/,
    );
    await rejects([{ filename: 'a', content: 'aGk=', content_type: 'pdf' }], 422, 'validation_error', /must be a media type/);
    await rejects(
      [{ filename: 'a', content: 'aGk=', content_id: 'x'.repeat(128) }],
      422,
      'validation_error',
      /`attachments\[0\].content_id` field must be under 128/,
    );
    await rejects([{ filename: 'a', content: 'aGk=', content_id: '<logo>' }], 422, 'validation_error', /content_id/);
    await rejects([{ filename: 'a', content: 'aGk=', contentType: 'text/plain' }], 422, 'validation_error', 'Unknown field `attachments[0].contentType`.');
    await rejects({ filename: 'a', content: 'aGk=' }, 422, 'validation_error', 'The `attachments` field must be an array.');
    await rejects(['aGk='], 422, 'validation_error', 'The `attachments[0]` field must be an object.');
  });

  it('refuses an email over 40 MB once its attachments are base64-encoded (41 MB)', async () => {
    const before = await count();
    const { error } = await t.resend.emails.send({
      ...OK,
      attachments: [{ filename: 'big.bin', content: Buffer.alloc(41 * 1024 * 1024, 7) }],
    });
    assert.equal(error?.statusCode, 422);
    assert.equal(error?.name, 'validation_error');
    assert.match(error!.message, /larger than the maximum of 40 MB/);
    // 30 MB of bytes are 40 MB of base64: also too large, counted after encoding.
    const { error: encoded } = await t.resend.emails.send({
      ...OK,
      attachments: [
        { filename: 'a.bin', content: Buffer.alloc(15 * 1024 * 1024, 1) },
        { filename: 'b.bin', content: Buffer.alloc(15 * 1024 * 1024, 2) },
      ],
    });
    assert.match(encoded!.message, /larger than the maximum of 40 MB/);
    assert.equal(await count(), before);
  });

  it('accepts up to 40 MB and refuses attachments in batch', async () => {
    const { data, error } = await t.resend.emails.send({
      ...OK,
      attachments: [{ filename: 'large.bin', content: Buffer.alloc(29 * 1024 * 1024, 3) }],
    });
    assert.equal(error, null, JSON.stringify(error));
    const [row] = await t.sql('SELECT size FROM email_attachments WHERE email_id = $1', [data!.id]);
    assert.equal(Number(row.size), 29 * 1024 * 1024);
    const batch = await rawRequest(t, 'POST', '/emails/batch', { body: [{ ...OK, attachments: [{ filename: 'a', content: 'aGk=' }] }] });
    assert.equal(batch.status, 422);
    assert.equal(batch.body.name, 'validation_error');
    assert.equal(batch.body.message, 'The `attachments` field must be left out of batch emails, not [{"filename":"a","content":"aGk="}].');
  });
});
