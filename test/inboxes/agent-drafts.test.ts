// The inbox agent drafts replies: real mail reaches Postline's inbound SMTP port (nodemailer),
// starts a thread in an inbox whose agent has the `draft_reply` action, and the worker asks a
// loopback model endpoint speaking the OpenAI chat completions protocol; the answer appears
// as a draft of the thread through the SDK's inbox drafts methods, never sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostline, type Postline } from '../../src/server.js';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from '../webhooks/support.js';
import { ChatCompletionsServer } from './chat-completions-server.js';
import { receive, startInboxTest } from './support.js';

const API_KEY = 'sk-test-agent-key';
const INSTRUCTIONS = 'Sign every reply as "The Acme support team". Offer a refund only for orders under 30 days.';

describe('inbox agent: drafts replies to new threads through a model endpoint', () => {
  let t: TestPostline;
  let inboxId: string;
  let model: ChatCompletionsServer;
  let receiver: WebhookReceiver;

  before(async () => {
    model = await new ChatCompletionsServer().start();
    ({ t, inboxId } = await startInboxTest({
      ...LOOPBACK_ENDPOINTS,
      POSTLINE_AGENT_URL: model.url,
      POSTLINE_AGENT_API_KEY: API_KEY,
      POSTLINE_AGENT_MODEL: 'acme-model-1',
      POSTLINE_AGENT_TIMEOUT: '500ms',
      POSTLINE_AGENT_RETRY_DELAYS: '200ms,200ms',
    }));
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['inbox.draft.created', 'email.sent']);
    const updated = await t.resend.inboxes.agent.update({ inboxId, instructions: INSTRUCTIONS, tone: 'concise_professional', actions: ['draft_reply'] });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
    await model?.stop();
  });

  const threadWithSubject = async (subject: string) => {
    const threads = await t.resend.inboxes.threads.list({ inboxId });
    return threads.data!.data.find((th) => th.subject === subject);
  };
  const draftsOf = async (threadId: string) => (await t.resend.inboxes.drafts.list({ inboxId })).data!.data.filter((d) => d.thread_id === threadId);
  const jobOf = async (threadId: string) => (await t.sql('SELECT status, attempts, last_error FROM inbox_agent_jobs WHERE thread_id = $1', [threadId]))[0];

  it("asks the model with the agent's instructions, tone and the mail, and stores its answer as a draft of the thread", async () => {
    model.answer = () => ({ reply: 'Hello Ada,\n\nYour order 1042 is on its way.\n\nThe Acme support team' });
    await receive(t, {
      from: 'Ada <ada@remote.test>',
      subject: 'Where is my order?',
      messageId: '<order@remote.test>',
      text: 'Order 1042 has not arrived yet.',
    });
    const thread = await eventually(() => threadWithSubject('Where is my order?'), 15_000, 'the thread');
    const [item] = await eventually(async () => (await draftsOf(thread.id)).length === 1 && draftsOf(thread.id), 15_000, 'the drafted reply');

    const [request, ...more] = model.about('Where is my order?');
    assert.equal(more.length, 0);
    assert.equal(request!.method, 'POST');
    assert.equal(request!.path, '/v1/chat/completions');
    assert.equal(request!.authorization, `Bearer ${API_KEY}`);
    assert.equal(request!.body.model, 'acme-model-1');
    const [system, user] = request!.body.messages!;
    assert.equal(system!.role, 'system');
    assert.ok(system!.content.includes(INSTRUCTIONS), system!.content);
    assert.match(system!.content, /Tone: concise_professional/);
    assert.equal(user!.role, 'user');
    assert.ok(user!.content.includes('Order 1042 has not arrived yet.'), user!.content);
    assert.ok(user!.content.includes('Ada <ada@remote.test>'), user!.content);

    const message = (await t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data[0]!;
    const draft = await t.resend.inboxes.drafts.get({ inboxId, draftId: item!.id });
    assert.equal(draft.error, null);
    assert.equal(draft.data!.type, 'reply');
    assert.equal(draft.data!.thread_id, thread.id);
    assert.equal(draft.data!.reply_to_email_id, message.id);
    assert.deepEqual(draft.data!.to, ['ada@remote.test']);
    assert.equal(draft.data!.subject, 'Re: Where is my order?');
    assert.equal(draft.data!.text, 'Hello Ada,\n\nYour order 1042 is on its way.\n\nThe Acme support team');
    assert.equal(draft.data!.email_id, null, 'never sent by the agent');

    await receiver.waitUntil(() => receiver.payloads('inbox.draft.created').length === 1);
    // The same event the API's drafts send: ids, and the draft and its thread embedded.
    const { draft: embedded, thread: embeddedThread, ...ids } = receiver.payloads('inbox.draft.created')[0].data;
    assert.deepEqual(ids, { source: 'agent', inbox_id: inboxId, draft_id: item!.id, thread_id: thread.id });
    assert.equal(embedded.id, item!.id);
    assert.equal(embedded.reply_to_email_id, message.id);
    assert.equal(embedded.subject, 'Re: Where is my order?');
    assert.equal(embeddedThread.id, thread.id);
    assert.deepEqual(await jobOf(thread.id), { status: 'drafted', attempts: 1, last_error: null });
    assert.equal(receiver.payloads('email.sent').length, 0, 'nothing was sent');
  });

  it('drafts once when the endpoint answers 500 and then a reply', async () => {
    let calls = 0;
    model.answer = (r) => {
      if (!r.body.messages?.some((m) => m.content.includes('Invoice copy'))) return { reply: 'unrelated' };
      calls++;
      return calls === 1 ? { status: 500 } : { reply: 'Here is your invoice.' };
    };
    await receive(t, { from: 'Bo <bo@remote.test>', subject: 'Invoice copy', messageId: '<invoice@remote.test>', text: 'Please send the invoice again.' });
    const thread = await eventually(() => threadWithSubject('Invoice copy'), 15_000, 'the thread');
    await eventually(async () => (await jobOf(thread.id))?.status === 'drafted', 15_000, 'the job drafted');
    const drafts = await draftsOf(thread.id);
    assert.equal(drafts.length, 1);
    assert.equal((await t.resend.inboxes.drafts.get({ inboxId, draftId: drafts[0]!.id })).data!.text, 'Here is your invoice.');
    assert.equal(model.about('Invoice copy').length, 2);
    assert.deepEqual(await jobOf(thread.id), { status: 'drafted', attempts: 2, last_error: null });
  });

  it('retries answers that carry no reply: not JSON, then no choices', async () => {
    const answers = [{ status: 200, body: 'upstream says hello' }, { status: 200, body: '{"choices":[]}' }, { reply: 'Third time lucky.' }];
    let calls = 0;
    model.answer = (r) => (r.body.messages?.some((m) => m.content.includes('Garbled answers')) ? answers[calls++]! : { reply: 'unrelated' });
    await receive(t, { from: 'Gus <gus@remote.test>', subject: 'Garbled answers', messageId: '<garbled@remote.test>', text: 'Hi.' });
    const thread = await eventually(() => threadWithSubject('Garbled answers'), 15_000, 'the thread');
    await eventually(async () => (await jobOf(thread.id))?.status === 'drafted', 15_000, 'the job drafted');
    const drafts = await draftsOf(thread.id);
    assert.equal(drafts.length, 1);
    assert.equal((await t.resend.inboxes.drafts.get({ inboxId, draftId: drafts[0]!.id })).data!.text, 'Third time lucky.');
    assert.equal(model.about('Garbled answers').length, 3);
  });

  it('gives up after its retries when the endpoint never answers, within the timeout, and keeps serving', async () => {
    model.answer = (r) => (r.body.messages?.some((m) => m.content.includes('Silent endpoint')) ? { hang: true } : { reply: 'unrelated' });
    const started = Date.now();
    await receive(t, { from: 'Cy <cy@remote.test>', subject: 'Silent endpoint', messageId: '<silent@remote.test>', text: 'Anyone there?' });
    const thread = await eventually(() => threadWithSubject('Silent endpoint'), 15_000, 'the thread');
    const job = await eventually(
      async () => {
        const j = await jobOf(thread.id);
        return j?.status === 'failed' && j;
      },
      20_000,
      'the job given up',
    );
    // Three attempts of 500 ms each and two waits of 200 ms: well under the bound.
    assert.ok(Date.now() - started < 15_000);
    assert.equal(job.attempts, 3);
    assert.match(job.last_error, /no answer within 500 ms/);
    assert.equal(model.about('Silent endpoint').length, 3);
    assert.deepEqual(await draftsOf(thread.id), []);
    const agent = await t.resend.inboxes.agent.get({ inboxId });
    assert.equal(agent.error, null, 'the server still answers');
  });

  it('calls nothing for an inbox whose agent may not draft replies, nor for a reply in a thread', async () => {
    const updated = await t.resend.inboxes.agent.update({ inboxId, actions: ['add_labels', 'archive'] });
    assert.equal(updated.error, null);
    model.answer = () => ({ reply: 'Drafted.' });
    await receive(t, { from: 'Di <di@remote.test>', subject: 'Agent off', messageId: '<off@remote.test>', text: 'No draft please.' });
    const off = await eventually(() => threadWithSubject('Agent off'), 15_000, 'the thread');
    assert.equal(await jobOf(off.id), undefined);

    await t.resend.inboxes.agent.update({ inboxId, actions: ['draft_reply'] });
    // A reply joins Ada's thread, which already has its draft: no second one.
    await receive(t, {
      from: 'Ada <ada@remote.test>',
      subject: 'Re: Where is my order?',
      messageId: '<order-2@remote.test>',
      inReplyTo: '<order@remote.test>',
      references: '<order@remote.test>',
      text: 'Any news?',
    });
    // A new thread afterwards is drafted: by then the worker has had its chance at the others.
    await receive(t, { from: 'Ed <ed@remote.test>', subject: 'Agent on again', messageId: '<on@remote.test>', text: 'Draft this one.' });
    const on = await eventually(() => threadWithSubject('Agent on again'), 15_000, 'the thread');
    await eventually(async () => (await draftsOf(on.id)).length === 1, 15_000, 'the drafted reply');
    assert.equal(model.about('Agent off').length, 0);
    assert.equal(model.about('Any news?').length, 0);
    assert.deepEqual(await draftsOf(off.id), []);
    const ada = await threadWithSubject('Where is my order?');
    assert.equal((await draftsOf(ada!.id)).length, 1);
  });

  it('drafts each new thread once when three worker nodes share the database', async () => {
    model.answer = () => ({ reply: 'One draft per thread.' });
    const others: Postline[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        others.push(
          await startPostline({ ...t.postline.config, databaseUrl: t.postline.databaseUrl, port: 0 }, { roles: ['worker'], logger: t.postline.logger }),
        );
      }
      const subjects = Array.from({ length: 6 }, (_, i) => `Shared by nodes ${i}`);
      await Promise.all(
        subjects.map((subject, i) => receive(t, { from: `N${i} <n${i}@remote.test>`, subject, messageId: `<nodes-${i}@remote.test>`, text: 'Hello.' })),
      );
      for (const subject of subjects) {
        const thread = await eventually(() => threadWithSubject(subject), 15_000, `the thread ${subject}`);
        await eventually(async () => (await jobOf(thread.id))?.status === 'drafted', 15_000, `${subject} drafted`);
        assert.equal((await draftsOf(thread.id)).length, 1, subject);
        assert.deepEqual(await jobOf(thread.id), { status: 'drafted', attempts: 1, last_error: null }, subject);
        assert.equal(model.about(subject).length, 1, `${subject}: one request`);
      }
    } finally {
      for (const other of others) await other.stop();
    }
  });

  it('keeps a queued draft across a restart: queued without the worker role, drafted once it runs', async () => {
    await t.restart({}, ['api', 'smtp']);
    model.answer = () => ({ reply: 'Drafted after the restart.' });
    await receive(t, { from: 'Flo <flo@remote.test>', subject: 'Queued meanwhile', messageId: '<queued@remote.test>', text: 'Hello?' });
    const thread = await eventually(() => threadWithSubject('Queued meanwhile'), 15_000, 'the thread');
    assert.deepEqual(await jobOf(thread.id), { status: 'pending', attempts: 0, last_error: null });
    await t.restart({}, ['api', 'smtp', 'worker']);
    await eventually(async () => (await draftsOf(thread.id)).length === 1, 15_000, 'the drafted reply');
    assert.equal(model.about('Queued meanwhile').length, 1);
  });
});
