// The /events routes (resend-compat-notes §2.11): custom event definitions and POST
// /events/send, whose events the automation worker acts on (src/automations/). One file per
// operation, for server.ts to mount.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { createEvent } from './create-event.js';
import { getEvent } from './get-event.js';
import { listEvents } from './list-events.js';
import { deleteEvent } from './delete-event.js';
import { sendEvent } from './send-event.js';
import { updateEvent } from './update-event.js';

export function customEventRoutes(db: Db): Route[] {
  return [sendEvent(db), createEvent(db), listEvents(db), getEvent(db), updateEvent(db), deleteEvent(db)];
}
