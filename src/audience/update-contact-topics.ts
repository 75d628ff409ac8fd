// PATCH /contacts/:contact/topics: the contact's explicit choices. The SDK sends the bare
// array `[{id, subscription}]` (contacts.topics.update sends `payload.topics`), the OpenAPI
// contract documents `{topics: [...]}`: both are taken, checked by one schema. Answers 200
// {object:'contact_topics', id, contact_id, topics}. Another account's topic is 404 and
// nothing is changed; contact.updated is recorded with the change.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, constant, type JsonSchema, object, oneOfValues, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import { TOPIC_CHOICES_SCHEMA } from './contact-request.js';
import { type Subscription, setTopicSubscriptions } from './contact-store.js';

const MAX_CHOICES = TOPIC_CHOICES_SCHEMA.maxItems!;

/**
 * Either form: the keywords of an object apply to the object, those of an array to the array,
 * so each form's failures are said in its own terms (a oneOf would report its first branch's
 * failure for both). The bare array's count is checked in the handler: a failure of the body
 * itself would be reported without a field name (request-schema.ts), where `topics` is meant.
 */
const UPDATE_TOPICS_SCHEMA: JsonSchema = {
  type: ['object', 'array'],
  description: `The choices, 1 to ${MAX_CHOICES}: \`{topics: [{id, subscription}]}\` (as Resend describes it), or the bare array (as the SDK sends it).`,
  properties: { topics: { ...TOPIC_CHOICES_SCHEMA, minItems: 1 } },
  required: ['topics'],
  additionalProperties: false,
  items: TOPIC_CHOICES_SCHEMA.items,
};

type Choice = { id: string; subscription: Subscription };

export function updateContactTopics(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/contacts/:contact/topics',
    bodyShape: 'json',
    doc: {
      summary: "Set a contact's topic subscriptions",
      params: { contact: CONTACT_KEY_SCHEMA },
      body: UPDATE_TOPICS_SCHEMA,
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
      const given = Array.isArray(body) ? (body as Choice[]) : (body as { topics: Choice[] }).topics;
      if (given.length === 0) throw validation('The `topics` field must have at least 1 item.');
      if (given.length > MAX_CHOICES) throw validation(`The \`topics\` field must have at most ${MAX_CHOICES} items.`);
      const choices = given.map((c) => ({ topicId: c.id.toLowerCase(), subscription: c.subscription }));
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
