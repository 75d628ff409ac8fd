// /inboxes/:inbox/agent: the inbox agent's settings (instructions, tone, actions from the
// SDK's INBOX_AGENT_TONES and INBOX_AGENT_ACTIONS), stored and returned. With a model endpoint
// (POSTLINE_AGENT_URL), `draft_reply` makes the agent draft replies to new threads
// (agent-worker.ts); the other actions are kept and not acted on.
import { missingField, validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, constant, input, nullable, object, objectId, oneOfValues, string } from '../api/schema.js';
import { objectBody, rejectUnknown } from '../api/validate.js';
import type { Db } from '../db/database.js';
import { findInbox } from './find-inbox.js';
import { INBOX_PARAM, recordInboxEvent } from './inbox-routes.js';

const TONES = ['concise_professional', 'concise_casual', 'expanded_professional', 'expanded_casual'] as const;
const ACTIONS = ['draft_reply', 'forward_thread', 'add_labels', 'assign_thread', 'mark_as_spam', 'archive', 'move_to_trash'] as const;
const MAX_INSTRUCTIONS = 10_000;

const AGENT_SCHEMA = object({
  object: constant('inbox_agent'),
  instructions: nullable(string()),
  tone: nullable(oneOfValues(TONES)),
  actions: array(oneOfValues(ACTIONS)),
});

export function agentRoutes(db: Db): Route[] {
  return [
    {
      method: 'GET',
      url: '/inboxes/:inbox/agent',
      doc: { summary: "Retrieve an inbox agent's settings", params: INBOX_PARAM, response: { status: 200, schema: AGENT_SCHEMA } },
      async handler({ principal, params }) {
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        return { body: { object: 'inbox_agent', instructions: inbox.agent_instructions, tone: inbox.agent_tone, actions: inbox.agent_actions } };
      },
    },
    {
      method: 'PATCH',
      url: '/inboxes/:inbox/agent',
      doc: {
        summary: "Update an inbox agent's settings",
        params: INBOX_PARAM,
        body: input({
          instructions: nullable(string({ maxLength: MAX_INSTRUCTIONS })),
          tone: nullable(oneOfValues(TONES)),
          actions: array(oneOfValues(ACTIONS)),
        }),
        response: { status: 200, schema: objectId('inbox_agent') },
      },
      async handler({ principal, params, body: raw }) {
        const body = objectBody(raw);
        rejectUnknown(body, ['instructions', 'tone', 'actions']);
        const has = (field: string) => body[field] !== undefined;
        if (!has('instructions') && !has('tone') && !has('actions')) throw missingField('instructions');
        const { instructions, tone, actions } = body;
        if (instructions !== undefined && instructions !== null && (typeof instructions !== 'string' || instructions.length > MAX_INSTRUCTIONS)) {
          throw validation(`The \`instructions\` field must be a string of at most ${MAX_INSTRUCTIONS} characters, or null.`);
        }
        if (tone !== undefined && tone !== null && !(TONES as readonly unknown[]).includes(tone))
          throw validation(`The \`tone\` field must be one of ${TONES.join(', ')}, or null.`);
        if (actions !== undefined && (!Array.isArray(actions) || !actions.every((a) => (ACTIONS as readonly unknown[]).includes(a)))) {
          throw validation(`The \`actions\` field must be an array of ${ACTIONS.join(', ')}.`);
        }
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        await db.tx(async (q) => {
          await q.query(
            `UPDATE inboxes SET agent_instructions = CASE WHEN $2 THEN $3 ELSE agent_instructions END,
                              agent_tone = CASE WHEN $4 THEN $5 ELSE agent_tone END,
                              agent_actions = coalesce($6, agent_actions), updated_at = now()
            WHERE id = $1`,
            [inbox.id, has('instructions'), instructions ?? null, has('tone'), tone ?? null, actions === undefined ? null : [...new Set(actions as string[])]],
          );
          await recordInboxEvent(q, inbox, 'inbox.updated');
        });
        return { body: { object: 'inbox_agent', id: inbox.id } };
      },
    },
  ];
}
