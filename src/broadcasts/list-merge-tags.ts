// GET /broadcasts/merge-tags: the merge tags a broadcast of the caller's may use, from the list
// sending checks them against (merge-tags.ts), so an editor offers only those and flags any
// other tag as it is typed instead of meeting the 422 at send time.
import { envelope, listOf } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { knownMergeTags, MERGE_TAG_SOURCES } from './merge-tags.js';

export function listMergeTags(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/merge-tags',
    doc: {
      summary: 'List the merge tags a broadcast may use',
      description:
        "The contact fields, the unsubscribe link and the account's contact properties, each used as `{{{KEY}}}` or `{{{KEY|fallback}}}`. " +
        'Sending a broadcast that uses any other tag answers 422.',
      addition: true,
      response: {
        status: 200,
        schema: listOf(
          object({
            key: string(),
            source: oneOfValues(MERGE_TAG_SOURCES, {
              description: 'A field of the contact, its unsubscribe link, or a contact property (POST /contact-properties).',
            }),
          }),
        ),
      },
    },
    async handler({ principal }) {
      return { body: envelope(await knownMergeTags(db, principal.accountId), false) };
    },
  };
}
