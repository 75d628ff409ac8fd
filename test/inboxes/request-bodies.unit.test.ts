// The bodies of the /inboxes routes, checked by their documented schemas (http/routes.ts,
// api/request-schema.ts) before the handlers run: each refusal with its status, name and
// message, and the body a handler gets. What stays in the handlers (addresses' syntax, at least
// one field of an update, labels of the inbox, files' content) is tested through the server
// (inboxes-labels-drafts, inbox-attachments, thread-assignment).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import type { Db } from '../../src/db/database.js';
import type { AcceptDeps } from '../../src/emails/accept.js';
import { inboxRoutes } from '../../src/inboxes/routes.js';
import { invalid, missing, refusal } from '../support/refusal.js';

const ROUTES = inboxRoutes({} as Db, {} as AcceptDeps);

/** The check of the route's body: its documented schema, which must be the one it validates with. */
function checkOf(method: string, url: string) {
  const route = ROUTES.find((r) => r.method === method && r.url === url);
  assert.ok(route?.doc?.body, `${method} ${url} documents its body`);
  assert.equal(route.doc.bodyCheckedByHandler, undefined, `${method} ${url} validates its body with its schema`);
  return requestCheck(route.doc.body);
}

describe('unit: /inboxes request bodies, checked by their schemas', () => {
  it('POST /inboxes: an address, names of one line, a boolean `forwarding`, nothing else', () => {
    const check = checkOf('POST', '/inboxes');
    assert.deepEqual(refusal(check, {}), missing('email_address'));
    assert.deepEqual(refusal(check, { email_address: null }), missing('email_address'));
    assert.deepEqual(refusal(check, { email_address: 5 }), invalid('The `email_address` field must be a string.'));
    assert.deepEqual(refusal(check, { email_address: 'a@b.test', name: '' }), invalid('The `name` field must not be empty.'));
    assert.deepEqual(
      refusal(check, { email_address: 'a@b.test', from_name: 'Help\r\nBcc: x@y.test' }),
      invalid('The `from_name` field must not contain line breaks, not "Help\\r\\nBcc: x@y.test".'),
    );
    assert.deepEqual(refusal(check, { email_address: 'a@b.test', name: 'n'.repeat(257) }), invalid('The `name` field must be at most 256 characters.'));
    assert.deepEqual(refusal(check, { email_address: 'a@b.test', forwarding: 'yes' }), invalid('The `forwarding` field must be a boolean.'));
    assert.deepEqual(refusal(check, { email_address: 'a@b.test', colour: 'red' }), invalid('Unknown field `colour`.'));
    assert.deepEqual(check({ email_address: 'a@b.test', name: null, from_name: 'Help', forwarding: true }), {
      email_address: 'a@b.test',
      from_name: 'Help',
      forwarding: true,
    });
  });

  it('PATCH /inboxes/:inbox: the names only (at least one is the handler’s rule, after unknown fields)', () => {
    const check = checkOf('PATCH', '/inboxes/:inbox');
    assert.deepEqual(refusal(check, { nmae: 'x' }), invalid('Unknown field `nmae`.'));
    assert.deepEqual(refusal(check, { name: 5 }), invalid('The `name` field must be a string.'));
    assert.deepEqual(check({}), {});
  });

  it('labels: a name of one line, a #RRGGBB colour; on a thread, 1 to 10 label ids (0 to replace them all)', () => {
    const create = checkOf('POST', '/inboxes/:inbox/labels');
    assert.deepEqual(refusal(create, { color: '#FF0000' }), missing('name'));
    assert.deepEqual(refusal(create, { name: '   ' }), invalid('The `name` field must be a non-blank line of text, not "   ".'));
    assert.deepEqual(refusal(create, { name: 'a\nb' }), invalid('The `name` field must be a non-blank line of text, not "a\\nb".'));
    assert.deepEqual(refusal(create, { name: 'n'.repeat(65) }), invalid('The `name` field must be at most 64 characters.'));
    assert.deepEqual(refusal(create, { name: 'Red', color: 'red' }), invalid('The `color` field must be a hex colour in the #RRGGBB format, not "red".'));
    assert.deepEqual(create({ name: ' Urgent ', color: '#e93d82' }), { name: ' Urgent ', color: '#e93d82' });
    assert.deepEqual(refusal(checkOf('PATCH', '/inboxes/:inbox/labels/:label'), { colour: '#FF0000' }), invalid('Unknown field `colour`.'));

    const add = checkOf('POST', '/inboxes/:inbox/threads/:thread/labels');
    const set = checkOf('PUT', '/inboxes/:inbox/threads/:thread/labels');
    const id = '00000000-0000-4000-8000-000000000000';
    assert.deepEqual(refusal(add, {}), missing('labels'));
    assert.deepEqual(refusal(add, { labels: [] }), invalid('The `labels` field must have at least 1 item.'));
    assert.deepEqual(set({ labels: [] }), { labels: [] });
    assert.deepEqual(refusal(set, { labels: Array(11).fill(id) }), invalid('The `labels` field must have at most 10 items.'));
    assert.deepEqual(refusal(add, { labels: [id, 'urgent'] }), invalid('The `labels[1]` field must be an id, not "urgent".'));
    assert.deepEqual(refusal(add, { labels: id }), invalid('The `labels` field must be an array.'));
  });

  it('PATCH a thread: read, a folder it can be moved to, an assignee or null', () => {
    const check = checkOf('PATCH', '/inboxes/:inbox/threads/:thread');
    assert.deepEqual(refusal(check, { folder: 'sent' }), invalid('The `folder` field must be one of "inbox" | "archive" | "spam" | "trash", not "sent".'));
    assert.deepEqual(refusal(check, { read: 'yes' }), invalid('The `read` field must be a boolean.'));
    assert.deepEqual(refusal(check, { assignee_email: 42 }), invalid('The `assignee_email` field must be an email address or null, not 42.'));
    assert.deepEqual(check({ assignee_email: null, read: null }), { assignee_email: null }, 'null unassigns; a null `read` is left out');
  });

  it("PATCH an inbox's agent: instructions or null, a tone or null, known actions", () => {
    const check = checkOf('PATCH', '/inboxes/:inbox/agent');
    assert.deepEqual(
      refusal(check, { tone: 'loud' }),
      invalid('The `tone` field must be one of "concise_professional" | "concise_casual" | "expanded_professional" | "expanded_casual" | null, not "loud".'),
    );
    assert.deepEqual(
      refusal(check, { actions: ['archive', 'launch'] }),
      invalid(
        'The `actions[1]` field must be one of "draft_reply" | "forward_thread" | "add_labels" | "assign_thread" | "mark_as_spam" | "archive" | "move_to_trash", not "launch".',
      ),
    );
    assert.deepEqual(refusal(check, { actions: 'archive' }), invalid('The `actions` field must be an array.'));
    assert.deepEqual(refusal(check, { instructions: 'i'.repeat(10_001) }), invalid('The `instructions` field must be at most 10000 characters.'));
    assert.deepEqual(check({ instructions: null, tone: null, actions: null }), { instructions: null, tone: null }, 'null clears; `actions` cannot be null');
  });

  it('drafts: addresses, texts or null, named files, a reply’s ids', () => {
    const create = checkOf('POST', '/inboxes/:inbox/drafts');
    assert.deepEqual(refusal(create, { to: 42 }), invalid('The `to` field must be a string or an array or null.'));
    assert.deepEqual(refusal(create, { to: ['a@b.test', 5] }), invalid('The `to[1]` field must be a string.'));
    assert.deepEqual(refusal(create, { text: 5 }), invalid('The `text` field must be a string or null.'));
    assert.deepEqual(refusal(create, { text: 'x', thread_id: 'nope' }), invalid('The `thread_id` field must be an id, not "nope".'));
    assert.deepEqual(refusal(create, { text: 'x', attachments: 'file' }), invalid('The `attachments` field must be an array or null.'));
    assert.deepEqual(refusal(create, { text: 'x', attachments: [{ content: 'aGk=' }] }), missing('attachments[0].filename'));
    assert.deepEqual(
      refusal(create, { text: 'x', attachments: [{ filename: '', content: 'aGk=' }] }),
      invalid('The `attachments[0].filename` field must not be empty.'),
    );
    assert.deepEqual(
      refusal(create, { text: 'x', attachments: [{ filename: 'a.txt', content: 'aGk=', colour: 'red' }] }),
      invalid('Unknown field `attachments[0].colour`.'),
    );
    assert.deepEqual(create({ to: null, text: 'x', thread_id: null, attachments: null }), { to: null, text: 'x', attachments: null });
    const update = checkOf('PATCH', '/inboxes/:inbox/drafts/:draft');
    assert.deepEqual(refusal(update, { text: 'x', thread_id: '00000000-0000-4000-8000-000000000000' }), invalid('Unknown field `thread_id`.'));
    const send = checkOf('POST', '/inboxes/:inbox/drafts/:draft/send');
    assert.deepEqual(refusal(send, { headers: 'X-A: b' }), invalid('The `headers` field must be an object.'));
    const injected = refusal(send, { headers: { 'X-A': 'b\r\nBcc: x@y.test' } });
    assert.deepEqual([injected.statusCode, injected.name], [422, 'validation_error']);
    assert.match(injected.message, /^The `headers\.X-A` field must not contain line breaks/);
    assert.deepEqual(send({ headers: null }), {});
  });

  it("replies and forwards: POST /emails' fields but `from`, and `reply_all`", () => {
    const reply = checkOf('POST', '/inboxes/:inbox/threads/:thread/emails/:email/reply');
    const forward = checkOf('POST', '/inboxes/:inbox/threads/:thread/emails/:email/forward');
    assert.deepEqual(refusal(reply, { text: 'x', reply_all: 'yes' }), invalid('The `reply_all` field must be a boolean.'));
    assert.deepEqual(refusal(reply, { text: 'x', to: 'a@b.test' }), invalid('Unknown field `to`.'));
    assert.deepEqual(refusal(reply, { text: 5 }), invalid('The `text` field must be a string.'));
    const injected = refusal(reply, { text: 'x', headers: { 'X-A': 'b\r\nBcc: x@y.test' } });
    assert.deepEqual([injected.statusCode, injected.name], [422, 'validation_error']);
    assert.match(injected.message, /^The `headers\.X-A` field must not contain line breaks/);
    assert.deepEqual(refusal(forward, { text: 'x' }), missing('to'));
    assert.deepEqual(refusal(forward, { to: 'a@b.test', reply_all: true }), invalid('Unknown field `reply_all`.'));
    assert.deepEqual(forward({ to: 'a@b.test', html: '', cc: null }), { to: 'a@b.test', html: '' });
  });
});
