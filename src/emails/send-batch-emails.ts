// POST /emails/batch: up to 100 emails in one submission (resend-compat-notes §5).
// `x-batch-validation: strict` (the SDK's default) rejects the whole batch with the first
// invalid email's error and writes nothing; `permissive` accepts the valid emails and reports
// the others in `errors` (always present in that mode). Ids come back in request order.
//
// Each email is checked by the schema its items are documented with (POST /emails' without
// scheduled_at and attachments), one by one in the accept pipeline rather than as one body
// before the handler: an invalid email is then that email's error, which
// decides a strict batch by its position and is reported by its index in a permissive one.
import { validation } from '../api/errors.js';
import { MAX_BATCH_EMAILS } from '../api/limits.js';
import type { Route } from '../api/route.js';
import { array, integer, object, oneOfValues, string, uuid } from '../api/schema.js';
import { acceptEmails, type AcceptDeps, type AcceptResult } from './accept.js';
import { checkEmailBody, emailRequestOf, emailRequestSchema, type SendableBody } from './email-request.js';

/** One email of the batch, against the schema its items are documented with. */
function checkItem(payload: unknown): unknown {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw validation('Each email in the batch must be a JSON object.');
  return checkEmailBody(payload, { batch: true });
}

function batchMode(header: string | string[] | undefined): 'strict' | 'permissive' {
  if (header === undefined) return 'strict';
  const value = String(header).trim().toLowerCase();
  if (value === 'strict' || value === 'permissive') return value;
  throw validation('The `x-batch-validation` header must be `strict` or `permissive`.');
}

function responseBody(result: AcceptResult, mode: 'strict' | 'permissive') {
  const data = result.ids.map((id) => ({ id }));
  if (mode === 'strict') return { data };
  return { data, errors: result.errors.map((e) => ({ index: e.index, message: e.error.message })) };
}

export function sendBatchEmails(deps: AcceptDeps): Route {
  return {
    method: 'POST',
    url: '/emails/batch',
    access: 'sending',
    idempotent: true,
    bodyShape: 'array',
    doc: {
      summary: 'Send up to 100 emails at once',
      headers: {
        'x-batch-validation': oneOfValues(['strict', 'permissive'], {
          default: 'strict',
          description: 'strict: one invalid email refuses the batch; permissive: the valid ones are sent and the others listed in `errors`.',
        }),
      },
      body: array(emailRequestSchema({ batch: true }), { minItems: 1, maxItems: MAX_BATCH_EMAILS }),
      bodyCheckedByHandler: 'each email against the item schema, in the accept pipeline: a bad email is that email’s error',
      response: {
        status: 200,
        schema: object({ data: array(object({ id: uuid() })), errors: array(object({ index: integer(), message: string() })) }, ['data'], {
          description: '`errors` only in permissive mode.',
        }),
      },
    },
    async handler(ctx) {
      const mode = batchMode(ctx.headers['x-batch-validation']);
      const payloads = ctx.body as unknown[];
      if (payloads.length === 0) throw validation('The batch must contain at least 1 email.');
      if (payloads.length > MAX_BATCH_EMAILS) throw validation(`The batch must contain at most ${MAX_BATCH_EMAILS} emails.`);
      const result = await acceptEmails(deps, {
        principal: ctx.principal,
        source: 'api',
        // Composed and signed by the delivery worker: the answer waits for one commit only.
        composeAt: 'delivery',
        payloads,
        check: checkItem,
        validate: (payload) => emailRequestOf(payload as SendableBody),
        mode,
        beforeCommit: async (q, accepted) => ctx.saveIdempotentResponse?.(q, 200, responseBody(accepted, mode)),
      });
      return { status: 200, body: responseBody(result, mode) };
    },
  };
}
