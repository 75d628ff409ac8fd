// The audience routes (resend-compat-notes §2.5–2.7), one file per operation, for server.ts
// to mount: contacts (also under the deprecated /audiences/:id/contacts), contact
// properties, segments (also as the deprecated /audiences) and topics.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { addContactSegment } from './add-contact-segment.js';
import { createContactProperty } from './create-contact-property.js';
import { createContact } from './create-contact.js';
import { createSegment } from './create-segment.js';
import { createTopic } from './create-topic.js';
import { deleteContactProperty } from './delete-contact-property.js';
import { deleteContact } from './delete-contact.js';
import { deleteSegment } from './delete-segment.js';
import { deleteTopic } from './delete-topic.js';
import { getContactProperty } from './get-contact-property.js';
import { getContact } from './get-contact.js';
import { getSegment } from './get-segment.js';
import { getTopic } from './get-topic.js';
import { listContactProperties } from './list-contact-properties.js';
import { contactActivity } from './contact-activity.js';
import { listContactSegments } from './list-contact-segments.js';
import { listContactTopics } from './list-contact-topics.js';
import { listContacts } from './list-contacts.js';
import { listSegments } from './list-segments.js';
import { listTopics } from './list-topics.js';
import { removeContactSegment } from './remove-contact-segment.js';
import { updateContactProperty } from './update-contact-property.js';
import { updateContactTopics } from './update-contact-topics.js';
import { updateContact } from './update-contact.js';
import { updateSegment } from './update-segment.js';
import { updateTopic } from './update-topic.js';

export function audienceRoutes(db: Db): Route[] {
  return [
    ...(['contacts', 'audiences'] as const).flatMap((path) => [
      createContact(db, path),
      getContact(db, path),
      updateContact(db, path),
      deleteContact(db, path),
    ]),
    listContacts(db, '/contacts'),
    listContacts(db, '/segments/:id/contacts'),
    listContacts(db, '/audiences/:id/contacts'),
    listContactSegments(db),
    contactActivity(db),
    addContactSegment(db),
    removeContactSegment(db),
    listContactTopics(db),
    updateContactTopics(db),

    createContactProperty(db),
    listContactProperties(db),
    getContactProperty(db),
    updateContactProperty(db),
    deleteContactProperty(db),

    ...(['segment', 'audience'] as const).flatMap((noun) => [createSegment(db, noun), listSegments(db, noun), getSegment(db, noun), deleteSegment(db, noun)]),
    updateSegment(db),

    createTopic(db),
    listTopics(db),
    getTopic(db),
    updateTopic(db),
    deleteTopic(db),
  ];
}
