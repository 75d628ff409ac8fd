// POST /emails: one email through the accept pipeline; 200 {id} once it is committed.
import type { Route } from '../api/route.js';
import { object, uuid } from '../api/schema.js';
import { acceptEmails, type AcceptDeps } from './accept.js';
import { emailRequestSchema, parseEmailRequest } from './email-request.js';

export function sendEmail(deps: AcceptDeps): Route {
  return {
    method: 'POST',
    url: '/emails',
    access: 'sending',
    idempotent: true,
    doc: { summary: 'Send an email', body: emailRequestSchema(), response: { status: 200, schema: object({ id: uuid() }) } },
    async handler(ctx) {
      const { ids } = await acceptEmails(deps, {
        principal: ctx.principal,
        source: 'api',
        // Composed and signed by the delivery worker: the answer waits for one commit only.
        composeAt: 'delivery',
        payloads: [ctx.body ?? {}],
        validate: (payload) => parseEmailRequest(payload),
        mode: 'strict',
        beforeCommit: async (q, result) => ctx.saveIdempotentResponse?.(q, 200, { id: result.ids[0] }),
      });
      return { status: 200, body: { id: ids[0] } };
    },
  };
}
