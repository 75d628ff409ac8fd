// POST /emails: one email through the accept pipeline; 200 {id} once it is committed. Its body
// is checked by its schema (email-request.ts) before the handler runs.
import type { Route } from '../api/route.js';
import { object, uuid } from '../api/schema.js';
import { acceptEmails, type AcceptDeps } from './accept.js';
import { emailRequestOf, emailRequestSchema, type SendableBody } from './email-request.js';

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
        payloads: [ctx.body],
        // Checked by the schema; a template's render step supplied what it left out.
        validate: (payload) => emailRequestOf(payload as SendableBody),
        mode: 'strict',
        beforeCommit: async (q, result) => ctx.saveIdempotentResponse?.(q, 200, { id: result.ids[0] }),
      });
      return { status: 200, body: { id: ids[0] } };
    },
  };
}
