// The fields of POST and PATCH /automations (resend-compat-notes §2.12), checked once here.
// The graph itself is graph.ts's; what needs the database (a send_email step's template must
// be one of the account's, published) is checkTemplates, run in the writing transaction.
import { missingField, validation } from '../api/errors.js';
import { input, oneOfValues, string } from '../api/schema.js';
import { optionalEnum, rejectUnknown, type Body } from '../api/validate.js';
import type { Queryable } from '../db/database.js';
import { findPublishedTemplates } from '../templates/find-template.js';
import { GRAPH_SCHEMAS, parseGraph, type Graph } from './graph.js';

export const STATUSES = ['enabled', 'disabled'] as const;
type AutomationStatus = (typeof STATUSES)[number];
const MAX_NAME = 255;

interface AutomationFields {
  name?: string;
  status?: AutomationStatus;
  graph?: Graph;
}

const FIELD_SCHEMAS = {
  name: string({ maxLength: MAX_NAME, pattern: '\\S' }),
  status: oneOfValues(STATUSES, { default: 'disabled' }),
  ...GRAPH_SCHEMAS,
};
/** The bodies parseCreate and parsePatch take, for the routes' docs. */
export const CREATE_AUTOMATION_SCHEMA = input(FIELD_SCHEMAS, ['name', 'steps', 'connections']);
export const PATCH_AUTOMATION_SCHEMA = input(FIELD_SCHEMAS, [], {
  minProperties: 1,
  dependentRequired: { steps: ['connections'], connections: ['steps'] },
});

function name(body: Body, required: boolean): string | undefined {
  const value = body.name;
  if (value === undefined || value === null) {
    if (required) throw missingField('name');
    return undefined;
  }
  if (typeof value !== 'string' || value.trim() === '') throw validation('The `name` field must be a non-empty string.');
  if (value.length > MAX_NAME) throw validation(`The \`name\` field must be at most ${MAX_NAME} characters.`);
  return value;
}

export function parseCreate(body: Body): Required<Pick<AutomationFields, 'name' | 'status' | 'graph'>> {
  rejectUnknown(body, ['name', 'status', 'steps', 'connections']);
  return {
    name: name(body, true)!,
    status: optionalEnum(body, 'status', STATUSES) ?? 'disabled',
    graph: parseGraph(body.steps, body.connections),
  };
}

/** PATCH: name, status, or steps with connections (the two only together); at least one. */
export function parsePatch(body: Body): AutomationFields {
  rejectUnknown(body, ['name', 'status', 'steps', 'connections']);
  const hasSteps = body.steps !== undefined;
  const hasConnections = body.connections !== undefined;
  if (hasSteps !== hasConnections) throw validation('The `steps` and `connections` fields must be given together.');
  const fields: AutomationFields = { name: name(body, false), status: optionalEnum(body, 'status', STATUSES) };
  if (hasSteps) fields.graph = parseGraph(body.steps, body.connections);
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
