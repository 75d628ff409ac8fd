// The bodies of POST and PATCH /automations (resend-compat-notes §2.12): their schemas, which
// check them before the handlers run (request-schema.ts), and what the handlers make of a
// checked body. The graph is graph.ts's; what needs the database (a send_email step's template
// must be one of the account's, published) is checkTemplates, run in the writing transaction.
import { validation } from '../api/errors.js';
import { input, oneOfValues, string } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { findPublishedTemplates } from '../templates/find-template.js';
import { type ConnectionInput, GRAPH_SCHEMAS, parseGraph, type Graph, type StepInput } from './graph.js';

export const STATUSES = ['enabled', 'disabled'] as const;
type AutomationStatus = (typeof STATUSES)[number];
const MAX_NAME = 255;

/** A body of POST or PATCH /automations once it passed its schema. */
export interface AutomationBody {
  name?: string;
  status?: AutomationStatus;
  steps?: StepInput[];
  connections?: ConnectionInput[];
}

interface AutomationFields {
  name?: string;
  status?: AutomationStatus;
  graph?: Graph;
}

const FIELD_SCHEMAS = {
  name: string({ maxLength: MAX_NAME, pattern: '\\S', 'x-message': `be a non-empty string of at most ${MAX_NAME} characters` }),
  status: oneOfValues(STATUSES, { default: 'disabled' }),
  ...GRAPH_SCHEMAS,
};
/** The bodies of POST and PATCH /automations: their check (request-schema.ts) and docs. */
export const CREATE_AUTOMATION_SCHEMA = input(FIELD_SCHEMAS, ['name', 'steps', 'connections']);
/** At least one field, and `steps` only with `connections` (parsePatch: rules between fields). */
export const PATCH_AUTOMATION_SCHEMA = input(FIELD_SCHEMAS, [], {
  description: 'At least one of `name`, `status`, or `steps` with `connections` (the two only together).',
});

export function parseCreate(body: Required<Pick<AutomationBody, 'name' | 'steps' | 'connections'>> & AutomationBody): Required<AutomationFields> {
  return { name: body.name, status: body.status ?? 'disabled', graph: parseGraph(body.steps, body.connections) };
}

/** PATCH: name, status, or steps with connections (the two only together); at least one. */
export function parsePatch(body: AutomationBody): AutomationFields {
  if ((body.steps === undefined) !== (body.connections === undefined)) throw validation('The `steps` and `connections` fields must be given together.');
  const fields: AutomationFields = { name: body.name, status: body.status };
  if (body.steps && body.connections) fields.graph = parseGraph(body.steps, body.connections);
  if (fields.name === undefined && fields.status === undefined && !fields.graph) {
    throw validation('Give at least one of `name`, `status`, or `steps` with `connections`.');
  }
  return fields;
}

/** Every send_email step must name a published template of the account (one query). */
export async function checkTemplates(q: Queryable, accountId: string, graph: Graph): Promise<void> {
  const sends = graph.steps.filter((s) => s.type === 'send_email');
  if (sends.length === 0) return;
  const refs = sends.map((s) => (s.config.template as { id: string }).id);
  const found = await findPublishedTemplates(q, accountId, refs);
  for (const step of sends) {
    const ref = (step.config.template as { id: string }).id;
    const template = found.get(ref);
    if (template === undefined) throw validation(`Step \`${step.key}\` (send_email): no template \`${ref}\` in this account.`);
    if (template === 'draft') throw validation(`Step \`${step.key}\` (send_email): the template \`${ref}\` has not been published.`);
  }
}
