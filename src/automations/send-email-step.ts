// The send_email step: the step's published template, sent to the run's contact through the
// one accept pipeline (src/emails/accept.ts, source 'automation'). The template's variables
// are, by increasing precedence: the contact's merge variables (contactVariables: FIRST_NAME,
// LAST_NAME, EMAIL, the account's contact properties), the trigger event's payload, and the
// step's own `template.variables` (with `{var: …}` references read). `from`, `subject` and
// `reply_to` come from the step's config, else from the template.
//
// The step's completion is written by the accepting transaction itself (beforeCommit), so the
// email and "this step is done" commit together: a crash before the commit sends nothing and
// the step runs again after its lease; a stale claim rolls the email back (advance.ts).
// An unsubscribed contact is not emailed: the step is `skipped` and the run goes on.
import { notFound } from '../api/errors.js';
import type { Body } from '../api/validate.js';
import { contactVariables, findContact } from '../audience/contact-store.js';
import type { Db } from '../db/database.js';
import { acceptEmails, type AcceptDeps } from '../emails/accept.js';
import { parseEmailRequest } from '../emails/email-request.js';
import { KEY, MAX_STRING_VALUE, type VariableValue } from '../templates/variables.js';
import { completeStep } from './advance.js';
import type { ClaimedStep } from './claim-steps.js';
import type { StepDef } from './graph.js';
import { fieldReader, resolveValue } from './run-context.js';

/** A value the template renderer takes (string or number), or undefined to leave it out. */
function templateValue(value: unknown): VariableValue | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value.length <= MAX_STRING_VALUE ? value : undefined;
  return undefined;
}

function variablesFrom(source: Body, read?: (field: string) => unknown): Record<string, VariableValue> {
  const out: Record<string, VariableValue> = {};
  for (const [key, raw] of Object.entries(source)) {
    if (!KEY.test(key)) continue;
    const value = templateValue(read ? resolveValue(raw, read) : raw);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export async function sendEmailStep(db: Db, accept: AcceptDeps, step: ClaimedStep, def: StepDef): Promise<void> {
  const { run } = step;
  const guard = { claimToken: step.claimToken };
  const contact = await findContact(db, run.account_id, run.contact_id);
  if (!contact) throw notFound('Contact');
  if (contact.unsubscribed) {
    await db.tx((q) =>
      completeStep(q, step.id, step.runId, guard, { output: { reason: 'The contact is unsubscribed.' }, taken: 'default', status: 'skipped' }),
    );
    return;
  }
  const config = def.config;
  const template = config.template as { id: string; variables?: Body };
  const variables = {
    ...(await contactVariables(db, run.account_id, contact)),
    ...variablesFrom(run.context.event ?? {}),
    ...variablesFrom(template.variables ?? {}, fieldReader(run.context, contact)),
  };
  const payload: Body = { to: [contact.email], template: { id: template.id, variables } };
  for (const field of ['from', 'subject', 'reply_to', 'topic_id']) if (config[field] !== undefined) payload[field] = config[field];
  await acceptEmails(accept, {
    principal: { accountId: run.account_id, domainId: null },
    source: 'automation',
    payloads: [payload],
    validate: (p) => parseEmailRequest(p),
    mode: 'strict',
    beforeCommit: (q, result) => completeStep(q, step.id, step.runId, guard, { output: { email_id: result.ids[0], to: contact.email }, taken: 'default' }),
  });
}
