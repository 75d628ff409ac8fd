// POST /broadcasts/:id/send {scheduled_at?}: a draft goes out at once or at `scheduled_at`
// (ISO 8601 or natural language, src/emails/schedule.ts); a scheduled one may be moved to
// another time or sent at once. Anything else: 403 naming its state. Answers 200 {id}.
import type { Route } from '../api/route.js';
import { input, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { SandboxSending } from '../emails/sender-domain.js';
import { MAX_SCHEDULED_AT_LENGTH, parseScheduledAt } from '../emails/schedule.js';
import { findBroadcast, UNSENT, wrongState } from './find-broadcast.js';
import { startSending } from './start-sending.js';

export function sendBroadcast(db: Db, sandbox?: SandboxSending): Route {
  return {
    method: 'POST',
    url: '/broadcasts/:id/send',
    doc: {
      summary: 'Send a broadcast now or at `scheduled_at`',
      params: { id: uuid() },
      body: input({ scheduled_at: string({ maxLength: MAX_SCHEDULED_AT_LENGTH, description: 'ISO 8601 or natural language ("in 1 hour"); default: now.' }) }),
      response: { status: 200, schema: object({ id: uuid() }) },
    },
    async handler({ principal, params, body }) {
      const { scheduled_at } = body as { scheduled_at?: string };
      const scheduledAt = scheduled_at === undefined ? null : parseScheduledAt(scheduled_at);
      const id = await db.tx(async (q) => {
        const broadcast = await findBroadcast(q, principal.accountId, params.id!, { lock: true });
        if (!UNSENT.includes(broadcast.status)) throw wrongState(broadcast.status, 'sent');
        await startSending(q, principal, broadcast, scheduledAt, sandbox);
        return broadcast.id;
      });
      return { body: { id } };
    },
  };
}
