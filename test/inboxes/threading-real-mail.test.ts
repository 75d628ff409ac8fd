import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import type { TestPostline } from '../support/postline.js';
import { delivered, receive, startInboxTest } from './support.js';

describe('inboxes: real mail in and out is grouped into threads', () => {
  let t: TestPostline;
  let inboxId: string;
  let threadId: string;
  let firstEmailId: string;
  let ourReplyMessageId: string;

  const threads = async (folders?: ('inbox' | 'archive' | 'spam' | 'sent' | 'trash')[]) => {
    const { data, error } = await t.resend.inboxes.threads.list({ inboxId, ...(folders ? { folders } : {}) });
    assert.equal(error, null, JSON.stringify(error));
    return data!.data;
  };
  const emailsOf = async (id: string) => {
    const { data, error } = await t.resend.inboxes.threads.emails.list({ inboxId, threadId: id });
    assert.equal(error, null, JSON.stringify(error));
    return data!.data;
  };

  before(async () => {
    ({ t, inboxId } = await startInboxTest());
  });
  after(async () => {
    await t?.stop();
  });

  it('files received mail into a new thread, unread, counted on the inbox', async () => {
    await receive(t, {
      from: 'Alice Remote <alice@remote.test>',
      subject: 'Order 42 is missing',
      messageId: '<a1@remote.test>',
      text: 'My parcel never arrived.',
    });
    const [thread] = await threads();
    assert.ok(thread);
    threadId = thread.id;
    assert.equal(thread.subject, 'Order 42 is missing');
    assert.equal(thread.from, 'Alice Remote <alice@remote.test>');
    assert.deepEqual(thread.to, ['support@support.test']);
    assert.equal(thread.email_count, 1);
    assert.equal(thread.read, false);
    assert.equal(thread.folder, 'inbox');
    assert.match(thread.received_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [email] = await emailsOf(threadId);
    firstEmailId = email!.id;
    assert.equal(email!.direction, 'inbound');
    assert.equal(email!.message_id, '<a1@remote.test>');
    assert.equal(email!.text?.trim(), 'My parcel never arrived.');
    const inbox = await t.resend.inboxes.get('support@support.test');
    assert.equal(inbox.data?.unread, 1);
    assert.equal(inbox.data?.id, inboxId);
    assert.ok(inbox.data?.last_received);
  });

  it('sends a reply from the inbox with In-Reply-To and References, in the same thread', async () => {
    const reply = await t.resend.inboxes.threads.emails.reply({ inboxId, threadId, emailId: firstEmailId, text: 'We are looking into it.' });
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    const sent = await delivered(t, 'alice@remote.test', 'Re: Order 42 is missing');
    assert.equal(sent.inReplyTo, '<a1@remote.test>');
    assert.equal(sent.references, '<a1@remote.test>');
    assert.equal(sent.from?.address, 'support@support.test');
    assert.equal(sent.from?.name, 'Support Team');
    ourReplyMessageId = sent.messageId!;
    const emails = await emailsOf(threadId);
    assert.deepEqual(
      emails.map((e) => e.direction),
      ['inbound', 'outbound'],
    );
    assert.equal(emails[1]!.message_id, ourReplyMessageId);
    const sentEmail = await t.resend.emails.get(reply.data!.id);
    assert.equal(sentEmail.data?.from, '"Support Team" <support@support.test>');
  });

  it("files the client's answer to our reply (In-Reply-To) into the thread", async () => {
    await receive(t, {
      from: 'Alice Remote <alice@remote.test>',
      subject: 'Re: Order 42 is missing',
      messageId: '<a2@remote.test>',
      inReplyTo: ourReplyMessageId,
      references: ['<a1@remote.test>', ourReplyMessageId],
      text: 'Thanks, the tracking number is 123.',
    });
    const all = await threads();
    assert.equal(all.length, 1);
    assert.equal(all[0]!.email_count, 3);
    assert.equal(all[0]!.read, false);
  });

  it('forwards a message, quoted, in the same thread', async () => {
    const forward = await t.resend.inboxes.threads.emails.forward({
      inboxId,
      threadId,
      emailId: firstEmailId,
      to: 'bob@remote.test',
      text: 'Bob, can you check?',
    });
    assert.equal(forward.error, null, JSON.stringify(forward.error));
    const sent = await delivered(t, 'bob@remote.test', 'Fwd: Order 42 is missing');
    assert.match(sent.text ?? '', /Bob, can you check\?[\s\S]*Forwarded message[\s\S]*My parcel never arrived\./);
    assert.equal(sent.inReplyTo, '<a1@remote.test>');
    assert.equal((await emailsOf(threadId)).length, 4);
  });

  it('joins a reply from a client that drops References by its subject, only for a participant', async () => {
    await receive(t, { from: 'alice@remote.test', subject: 'RE:  order 42 is MISSING', text: 'Any news?' });
    await receive(t, { from: 'carol@remote.test', subject: 'Re: Order 42 is missing', text: 'Not the same conversation.' });
    await receive(t, { from: 'dave@remote.test', subject: 'A new question', text: 'Where is the refund form?' });
    const all = await threads();
    assert.equal(all.length, 3);
    const main = all.find((th) => th.id === threadId)!;
    assert.equal(main.email_count, 5);
    assert.ok(all.some((th) => th.from === 'carol@remote.test' && th.email_count === 1));
  });

  it('searches subject, addresses and text with full-text search', async () => {
    const search = async (options: Record<string, unknown>) => {
      const { data, error } = await t.resend.inboxes.threads.search({ inboxId, ...options });
      assert.equal(error, null, JSON.stringify(error));
      return data!.data;
    };
    const byText = await search({ query: 'tracking number' });
    assert.deepEqual(
      byText.map((th) => th.id),
      [threadId],
    );
    // The thread names its newest message that matches, not its newest message.
    const emails = await emailsOf(threadId);
    const newestWith = (word: RegExp) => emails.filter((e) => word.test(e.text ?? '')).at(-1)!.id;
    assert.equal(byText[0]!.matched_email_id, newestWith(/tracking number/));
    assert.notEqual(byText[0]!.matched_email_id, emails.at(-1)!.id);
    const byParcel = await search({ query: 'parcel' });
    assert.deepEqual(
      byParcel.map((th) => [th.id, th.matched_email_id]),
      [[threadId, newestWith(/parcel/i)]],
    );
    assert.deepEqual(
      (await search({ query: 'refund' })).map((th) => th.from),
      ['dave@remote.test'],
    );
    assert.equal((await search({ from: ['carol@remote.test'] })).length, 1);
    assert.equal((await search({ query: 'parcel', hasAttachment: true })).length, 0);
    assert.equal((await search({ query: 'nothing-like-this' })).length, 0);

    // A word in every message: paged one thread at a time (the newest threads are probed first
    // when a word is common), the same threads in the same order as one page of them all.
    const everyOne = await search({ query: 'support@support.test' });
    assert.ok(everyOne.length >= 3, `${everyOne.length} threads`);
    const paged: typeof everyOne = [];
    let after: string | undefined;
    for (let pages = 0; pages <= everyOne.length; pages++) {
      const { data, error } = await t.resend.inboxes.threads.search({ inboxId, query: 'support@support.test', limit: 1, ...(after ? { after } : {}) });
      assert.equal(error, null, JSON.stringify(error));
      paged.push(...data!.data);
      if (!data!.has_more) break;
      after = data!.data.at(-1)!.id;
    }
    assert.deepEqual(
      paged.map((th) => [th.id, th.matched_email_id]),
      everyOne.map((th) => [th.id, th.matched_email_id]),
    );
  });

  it('moves threads between folders, marks them read and deletes them', async () => {
    const updated = await t.resend.inboxes.threads.update({ inboxId, threadId, folder: 'archive', read: true });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    assert.deepEqual(updated.data, {
      object: 'inbox_thread',
      id: threadId,
      subject: 'Order 42 is missing',
      folder: 'archive',
      labels: [],
      read: true,
      assignee_email: null, // Postline's addition (thread-assignment.ts)
    });
    assert.ok(!(await threads()).some((th) => th.id === threadId));
    assert.deepEqual(
      (await threads(['archive'])).map((th) => th.id),
      [threadId],
    );
    assert.ok((await emailsOf(threadId)).every((e) => e.read));
    // New mail in an archived conversation brings it back to the inbox, unread.
    await receive(t, { from: 'alice@remote.test', subject: 'Re: Order 42 is missing', inReplyTo: '<a2@remote.test>', text: 'Found it!' });
    const back = (await threads()).find((th) => th.id === threadId)!;
    assert.equal(back.folder, 'inbox');
    assert.equal(back.read, false);

    const other = (await threads()).find((th) => th.from === 'dave@remote.test')!;
    const removed = await t.resend.inboxes.threads.remove({ inboxId, threadId: other.id });
    assert.deepEqual(removed.data, { object: 'inbox_thread', id: other.id, deleted: true });
    assert.equal((await t.resend.inboxes.threads.get({ inboxId, threadId: other.id })).error?.statusCode, 404);
  });

  it("answers 404 for another account's inbox and threads, and 422 for malformed filters", async () => {
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    assert.deepEqual((await stranger.inboxes.get(inboxId)).error, { statusCode: 404, message: 'Inbox not found', name: 'not_found' });
    assert.equal((await stranger.inboxes.get('support@support.test')).error?.statusCode, 404);
    assert.equal((await stranger.inboxes.threads.get({ inboxId, threadId })).error?.statusCode, 404);
    assert.equal((await stranger.inboxes.threads.emails.reply({ inboxId, threadId, emailId: firstEmailId, text: 'x' })).error?.statusCode, 404);
    const badFolder = await t.resend.inboxes.threads.list({ inboxId, folders: ['nowhere' as 'inbox'] });
    assert.equal(badFolder.error?.statusCode, 422);
    assert.equal(badFolder.error?.name, 'invalid_parameter');
    const badUpdate = await t.resend.inboxes.threads.update({ inboxId, threadId, folder: 'sent' as 'inbox' });
    assert.equal(badUpdate.error?.statusCode, 422);
    assert.equal(badUpdate.error?.name, 'validation_error');
    const threadingHeader = await t.resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: firstEmailId,
      text: 'x',
      headers: { 'in-reply-to': '<x@y>' },
    });
    assert.equal(threadingHeader.error?.statusCode, 422);
  });
});
