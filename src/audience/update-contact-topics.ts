// PATCH /contacts/:contact/topics: the contact's explicit choices. The SDK sends the bare
// array `[{id, subscription}]` (contacts.topics.update sends `payload.topics`), the OpenAPI
// contract documents `{topics: [...]}`: both are taken. Answers 200
// {object:'contact_topics', id, contact_id, topics}. Another account's topic is 404 and
// nothing is changed; contact.updated is recorded with the change.
import { missingField, validation } from '../api/errors.js';
import { objectBody, rejectUnknown } from '../api/validate.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { pathContact } from './contact-paths.js';
import { parseTopicChoices } from './contact-request.js';
import { setTopicSubscriptions } from './contact-store.js';

export function updateContactTopics(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/contacts/:contact/topics',
    bodyShape: 'json',
    async handler({ principal, params, body }) {
      const choices = parseTopicChoices(Array.isArray(body) ? body : topicsField(body), 'topics');
      if (choices.length === 0) throw validation('The `topics` field must have at least 1 item.');
      const contactId = await db.tx(async (q) => {
        const contact = await pathContact(q, principal.accountId, params);
        await setTopicSubscriptions(q, principal.accountId, contact.id, choices);
        return contact.id;
      });
      return {
        body: {
          object: 'contact_topics',
          id: contactId,
          contact_id: contactId,
          topics: choices.map((c) => ({ id: c.topicId, subscription: c.subscription })),
        },
      };
    },
  };
}

/** The `{topics: [...]}` form of the body. */
function topicsField(body: unknown): unknown {
  const fields = objectBody(body);
  rejectUnknown(fields, ['topics']);
  if (fields.topics === undefined) throw missingField('topics');
  return fields.topics;
}
