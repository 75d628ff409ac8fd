// PATCH /contacts/:contact/topics: the contact's explicit choices. The SDK sends the bare
// array `[{id, subscription}]` (contacts.topics.update sends `payload.topics`), the OpenAPI
// contract documents `{topics: [...]}`: both are taken. Answers 200
// {object:'contact_topics', id, contact_id, topics}. Another account's topic is 404 and
// nothing is changed; contact.updated is recorded with the change.
import { missingField, validation } from '../api/errors.js';
import { objectBody, rejectUnknown } from '../api/validate.js';
import type { Route } from '../api/route.js';
import { array, constant, input, object, oneOfValues, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import { parseTopicChoices, TOPIC_CHOICES_SCHEMA } from './contact-request.js';
import { setTopicSubscriptions } from './contact-store.js';

export function updateContactTopics(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/contacts/:contact/topics',
    bodyShape: 'json',
    doc: {
      summary: "Set a contact's topic subscriptions",
      params: { contact: CONTACT_KEY_SCHEMA },
      // The SDK sends the bare array, Resend's description the object: both are taken.
      body: { oneOf: [input({ topics: { ...TOPIC_CHOICES_SCHEMA, minItems: 1 } }, ['topics']), { ...TOPIC_CHOICES_SCHEMA, minItems: 1 }] },
      response: {
        status: 200,
        schema: object({
          object: constant('contact_topics'),
          id: uuid(),
          contact_id: uuid(),
          topics: array(object({ id: uuid(), subscription: oneOfValues(['opt_in', 'opt_out']) })),
        }),
      },
    },
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
