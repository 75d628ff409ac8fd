// Files on drafts and forwards, with real mail: a draft's files (given as content, or a `path`
// downloaded from a loopback server when the draft is written) go out with it and arrive
// intact at the recipient's MX (the sink); a forward carries the original message's files,
// received or sent, before the ones the caller adds.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { delivered, receive, startInboxTest } from './support.js';

const REPORT = crypto.randomBytes(70_000);
const FETCHED = crypto.randomBytes(30_000);
const PHOTO = crypto.randomBytes(5_000);

describe('inboxes: files on drafts and forwards, through real mail', () => {
  let t: TestPostline;
  let inboxId: string;
  let files: http.Server;
  let base: string;

  const fileOf = (email: Awaited<ReturnType<typeof delivered>>, name: string) => {
    const found = email.attachments.find((a) => a.filename === name);
    assert.ok(found, `${name} among ${email.attachments.map((a) => a.filename).join(', ')}`);
    return Buffer.from(found.content as ArrayBuffer);
  };

  before(async () => {
    files = http.createServer((req, res) => {
      if (req.url === '/files/fetched.bin') return res.writeHead(200, { 'content-type': 'application/x-test' }).end(FETCHED);
      if (req.url === '/files/huge') return res.writeHead(200, { 'content-length': String(26 * 1024 * 1024) }).end();
      if (req.url === '/files/empty') return res.writeHead(200).end();
      return res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    ({ t, inboxId } = await startInboxTest({ POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE: 'true', POSTLINE_ATTACHMENT_FETCH_TIMEOUT: '2s' }));
  });
  after(async () => {
    files?.closeAllConnections();
    await new Promise((resolve) => files?.close(resolve));
    await t?.stop();
  });

  it("stores a draft's files, returns them as the SDK declares, and sends them intact", async () => {
    const created = await t.resend.inboxes.drafts.create({
      inboxId,
      to: 'gina@remote.test',
      subject: 'Your report',
      text: 'Attached.',
      attachments: [
        { filename: 'report.pdf', content: REPORT, contentType: 'application/pdf' },
        { filename: 'fetched.bin', path: `${base}/files/fetched.bin` },
      ],
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const draftId = created.data!.id;
    const got = await t.resend.inboxes.drafts.get({ inboxId, draftId });
    assert.equal(got.error, null);
    const stored = got.data!.attachments;
    assert.deepEqual(
      stored.map(({ filename, content_type, size }) => ({ filename, content_type, size })),
      [
        { filename: 'report.pdf', content_type: 'application/pdf', size: REPORT.length },
        { filename: 'fetched.bin', content_type: 'application/x-test', size: FETCHED.length },
      ],
    );
    for (const a of stored) assert.match(a.id, /^[0-9a-f-]{36}$/);
    const listed = await t.resend.inboxes.drafts.list({ inboxId });
    assert.deepEqual(listed.data!.data.find((d) => d.id === draftId)?.attachments, stored);

    // Sending `attachments` replaces every file; the others' bytes are gone from the draft.
    const updated = await t.resend.inboxes.drafts.update({
      inboxId,
      draftId,
      attachments: [
        { filename: 'report.pdf', content: REPORT.toString('base64'), contentType: 'application/pdf' },
        { filename: 'photo.png', content: PHOTO, contentType: 'image/png' },
      ],
    });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    const replaced = (await t.resend.inboxes.drafts.get({ inboxId, draftId })).data!.attachments;
    assert.deepEqual(
      replaced.map((a) => a.filename),
      ['report.pdf', 'photo.png'],
    );

    const sent = await t.resend.inboxes.drafts.send({ inboxId, draftId });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const email = await delivered(t, 'gina@remote.test', 'Your report');
    assert.equal(email.attachments.length, 2);
    assert.ok(fileOf(email, 'report.pdf').equals(REPORT));
    assert.ok(fileOf(email, 'photo.png').equals(PHOTO));
    assert.equal(email.attachments.find((a) => a.filename === 'photo.png')?.mimeType, 'image/png');
    // The inbox's copy lists them too.
    const thread = (await t.resend.inboxes.threads.list({ inboxId, folders: ['sent'] })).data!.data.find((th) => th.subject === 'Your report')!;
    assert.equal(thread.has_attachment, true);
    const [copy] = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    assert.deepEqual(
      copy!.attachments.map((a) => [a.filename, a.size]),
      [
        ['report.pdf', REPORT.length],
        ['photo.png', PHOTO.length],
      ],
    );
  });

  it('clears the files with null or []', async () => {
    const created = await t.resend.inboxes.drafts.create({
      inboxId,
      text: 'x',
      attachments: [{ filename: 'a.txt', content: 'aGk=', contentType: 'text/plain' }],
    });
    const draftId = created.data!.id;
    assert.equal((await t.resend.inboxes.drafts.update({ inboxId, draftId, attachments: null })).error, null);
    assert.deepEqual((await t.resend.inboxes.drafts.get({ inboxId, draftId })).data!.attachments, []);
    assert.equal(
      (await t.resend.inboxes.drafts.update({ inboxId, draftId, attachments: [{ filename: 'b.txt', content: 'aGk=', contentType: 'text/plain' }] })).error,
      null,
    );
    assert.equal((await t.resend.inboxes.drafts.update({ inboxId, draftId, attachments: [] })).error, null);
    assert.deepEqual((await t.resend.inboxes.drafts.get({ inboxId, draftId })).data!.attachments, []);
  });

  it('refuses bad files with 422 and a clear message, storing nothing', async () => {
    const post = (attachments: unknown) => rawRequest(t, 'POST', `/inboxes/${inboxId}/drafts`, { body: { text: 'x', attachments } });
    const before = (await t.resend.inboxes.drafts.list({ inboxId })).data!.data.length;
    assert.deepEqual((await post('file')).body, { statusCode: 422, message: 'The `attachments` field must be an array or null.', name: 'validation_error' });
    assert.deepEqual((await post([{ filename: 'e.txt', content: '' }])).body, {
      statusCode: 422,
      message: 'Attachment must have either a `content` or `path`.',
      name: 'invalid_attachment',
    });
    assert.deepEqual((await post([{ content: 'aGk=' }])).body, {
      statusCode: 422,
      message: 'Missing `attachments[0].filename` field.',
      name: 'missing_required_field',
    });
    assert.deepEqual((await post([{ filename: 'a.txt', content: '!!!' }])).body, {
      statusCode: 422,
      message: 'The `attachments[0].content` field is not valid base64.',
      name: 'invalid_attachment',
    });
    assert.deepEqual((await post([{ filename: 'a.txt', content: 'aGk=', colour: 'red' }])).body, {
      statusCode: 422,
      message: 'Unknown field `attachments[0].colour`.',
      name: 'validation_error',
    });
    const empty = await post([{ filename: 'e.txt', path: `${base}/files/empty` }]);
    assert.deepEqual(empty.body, { statusCode: 422, message: 'The file at `attachments[0].path` is empty.', name: 'invalid_attachment' });
    const missing = await post([{ filename: 'm.txt', path: `${base}/files/missing` }]);
    assert.equal(missing.status, 422);
    assert.equal(missing.body.name, 'invalid_attachment');
    assert.match(missing.body.message, /could not be fetched: the server answered HTTP 404/);
    const huge = await post([{ filename: 'h.bin', path: `${base}/files/huge` }]);
    assert.equal(huge.status, 422);
    assert.match(huge.body.message, /attachments\[0\]\.path/);
    const tooMuch = await post([
      { filename: 'a.bin', content: Buffer.alloc(13 * 1024 * 1024).toString('base64') },
      { filename: 'b.bin', content: Buffer.alloc(13 * 1024 * 1024).toString('base64') },
    ]);
    assert.deepEqual(tooMuch.body, { statusCode: 422, message: 'The files on a draft can total at most 25 MB.', name: 'validation_error' });
    assert.equal((await t.resend.inboxes.drafts.list({ inboxId })).data!.data.length, before);
  });

  it("forwards a received message with its files, and a sent one with its own, plus the caller's", async () => {
    await receive(t, {
      from: 'Hugo <hugo@remote.test>',
      subject: 'Contract',
      messageId: '<c1@remote.test>',
      text: 'See the contract and the scan.',
      attachments: [
        { filename: 'contract.pdf', content: REPORT, contentType: 'application/pdf' },
        { filename: 'scan.png', content: PHOTO, contentType: 'image/png' },
      ],
    });
    const thread = (await t.resend.inboxes.threads.list({ inboxId })).data!.data.find((th) => th.subject === 'Contract')!;
    const [original] = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    assert.equal(original!.attachments.length, 2);
    const forward = await t.resend.inboxes.threads.emails.forward({
      inboxId,
      threadId: thread.id,
      emailId: original!.id,
      to: 'legal@remote.test',
      text: 'For review.',
      attachments: [{ filename: 'notes.txt', content: Buffer.from('my notes') }],
    });
    assert.equal(forward.error, null, JSON.stringify(forward.error));
    const email = await delivered(t, 'legal@remote.test', 'Fwd: Contract');
    assert.deepEqual(
      email.attachments.map((a) => a.filename),
      ['contract.pdf', 'scan.png', 'notes.txt'],
    );
    assert.ok(fileOf(email, 'contract.pdf').equals(REPORT));
    assert.ok(fileOf(email, 'scan.png').equals(PHOTO));
    assert.equal(fileOf(email, 'notes.txt').toString(), 'my notes');

    // The forward itself is a sent message of the thread; forwarding it sends its three files.
    const copies = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    const sentCopy = copies.find((m) => m.direction === 'outbound')!;
    assert.equal(sentCopy.attachments.length, 3);
    const again = await t.resend.inboxes.threads.emails.forward({ inboxId, threadId: thread.id, emailId: sentCopy.id, to: 'archive@remote.test' });
    assert.equal(again.error, null, JSON.stringify(again.error));
    const archived = await delivered(t, 'archive@remote.test', 'Fwd: Contract');
    assert.ok(fileOf(archived, 'contract.pdf').equals(REPORT));
    assert.equal(fileOf(archived, 'notes.txt').toString(), 'my notes');

    // The original's files and the caller's share one limit of 10 files.
    const nine = Array.from({ length: 9 }, (_, i) => ({ filename: `f${i}.txt`, content: Buffer.from('x') }));
    const tooMany = await t.resend.inboxes.threads.emails.forward({
      inboxId,
      threadId: thread.id,
      emailId: original!.id,
      to: 'x@remote.test',
      attachments: nine,
    });
    assert.equal(tooMany.error?.statusCode, 422);
    assert.match(tooMany.error!.message, /at most 10 files/);
  });

  it("answers 404 for another account's drafts and messages", async () => {
    const created = await t.resend.inboxes.drafts.create({
      inboxId,
      text: 'mine',
      attachments: [{ filename: 'a.txt', content: 'aGk=', contentType: 'text/plain' }],
    });
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    const draftId = created.data!.id;
    assert.equal((await stranger.inboxes.drafts.get({ inboxId, draftId })).error?.statusCode, 404);
    const update = await stranger.inboxes.drafts.update({ inboxId, draftId, attachments: [{ filename: 'b.txt', content: 'aGk=', contentType: 'text/plain' }] });
    assert.equal(update.error?.statusCode, 404);
    assert.deepEqual(
      (await t.resend.inboxes.drafts.get({ inboxId, draftId })).data!.attachments.map((a) => a.filename),
      ['a.txt'],
    );
  });
});
