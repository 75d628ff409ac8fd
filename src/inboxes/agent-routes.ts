// /inboxes/:inbox/agent: the inbox agent's settings (instructions, tone, actions from the
// SDK's INBOX_AGENT_TONES and INBOX_AGENT_ACTIONS), stored and returned. With a model endpoint
// (POSTLINE_AGENT_URL), `draft_reply` makes the agent draft replies to new threads
// (agent-worker.ts); the other actions are kept and not acted on.
import { missingField } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, constant, input, type JsonSchema, nullable, object, objectId, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findInbox } from './find-inbox.js';
import { INBOX_PARAM, recordInboxEvent } from './inbox-routes.js';

const TONES = ['concise_professional', 'concise_casual', 'expanded_professional', 'expanded_casual'] as const;
const ACTIONS = ['draft_reply', 'forward_thread', 'add_labels', 'assign_thread', 'mark_as_spam', 'archive', 'move_to_trash'] as const;
const MAX_INSTRUCTIONS = 10_000;

/** One of the tones, or null (nullable() alone would leave null out of the enum). */
const TONE_SCHEMA: JsonSchema = { type: ['string', 'null'], enum: [...TONES, null] };
const AGENT_SCHEMA = object({
  object: constant('inbox_agent'),
  instructions: nullable(string()),
  tone: TONE_SCHEMA,
  actions: array(oneOfValues(ACTIONS)),
});
const UPDATE_AGENT_SCHEMA = input(
  {
    instructions: nullable(string({ maxLength: MAX_INSTRUCTIONS, description: 'null clears them.' })),
    tone: { ...TONE_SCHEMA, description: 'null clears it.' },
    actions: array(oneOfValues(ACTIONS), { description: 'Replaces the actions; each is kept once.' }),
  },
  [],
  { description: 'At least one of `instructions`, `tone` and `actions`.' },
);

/** The body of PATCH /inboxes/:inbox/agent once it passed UPDATE_AGENT_SCHEMA; null clears instructions or tone. */
interface AgentFields {
  instructions?: string | null;
  tone?: (typeof TONES)[number] | null;
  actions?: (typeof ACTIONS)[number][];
}

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
        body: UPDATE_AGENT_SCHEMA,
        response: { status: 200, schema: objectId('inbox_agent') },
      },
      async handler({ principal, params, body }) {
        const { instructions, tone, actions } = body as AgentFields;
        // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
        if (instructions === undefined && tone === undefined && actions === undefined) throw missingField('instructions');
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        await db.tx(async (q) => {
          await q.query(
            `UPDATE inboxes SET agent_instructions = CASE WHEN $2 THEN $3 ELSE agent_instructions END,
                              agent_tone = CASE WHEN $4 THEN $5 ELSE agent_tone END,
                              agent_actions = coalesce($6, agent_actions), updated_at = now()
            WHERE id = $1`,
            [
              inbox.id,
              instructions !== undefined,
              instructions ?? null,
              tone !== undefined,
              tone ?? null,
              actions === undefined ? null : [...new Set(actions)],
            ],
          );
          await recordInboxEvent(q, inbox, 'inbox.updated');
        });
        return { body: { object: 'inbox_agent', id: inbox.id } };
      },
    },
  ];
}
