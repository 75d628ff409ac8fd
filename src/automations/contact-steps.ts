// The steps that change the run's contact, through the audience's contact store (which
// records contact.updated / contact.deleted): each change and the step's completion share one
// transaction, so a change is made exactly once. An ApiError (no such contact or segment, a
// property the account has not defined) fails the step.
import { notFound, validation } from '../api/errors.js';
import type { Body } from '../api/validate.js';
import { addContactToSegment, deleteContact, findContact, updateContact, type ContactFields, type PropertyValue } from '../audience/contact-store.js';
import type { Db } from '../db/database.js';
import { completeStep, type Guard } from './advance.js';
import type { ClaimedStep } from './claim-steps.js';
import type { StepDef } from './graph.js';
import { fieldReader, resolveValue } from './run-context.js';

const guardOf = (step: ClaimedStep): Guard => ({ claimToken: step.claimToken });

export async function contactUpdateStep(db: Db, step: ClaimedStep, def: StepDef): Promise<void> {
  const { run } = step;
  await db.tx(async (q) => {
    const contact = await findContact(q, run.account_id, run.contact_id);
    if (!contact) throw notFound('Contact');
    const changes = contactChanges(def.config, fieldReader(run.context, contact));
    const updated = await updateContact(q, run.account_id, contact.id, changes);
    if (!updated) throw notFound('Contact');
    await completeStep(q, step.id, step.runId, guardOf(step), { output: { contact_id: contact.id, changed: Object.keys(changes) }, taken: 'default' });
  });
}

/** The config with its references read; a reference to an absent field leaves that field as it is. */
function contactChanges(config: Body, read: (field: string) => unknown): Partial<ContactFields> {
  const changes: Partial<ContactFields> = {};
  for (const [field, name] of [
    ['first_name', 'firstName'],
    ['last_name', 'lastName'],
  ] as const) {
    if (!(field in config)) continue;
    const value = resolveValue(config[field], read);
    if (value === undefined) continue;
    changes[name] = value === null ? null : String(value);
  }
  if ('unsubscribed' in config) {
    const value = resolveValue(config.unsubscribed, read);
    if (value !== undefined) changes.unsubscribed = asBoolean(value);
  }
  if (config.properties) {
    const properties: Record<string, PropertyValue> = {};
    for (const [key, raw] of Object.entries(config.properties as Body)) {
      const value = resolveValue(raw, read);
      if (value === undefined) continue;
      // Contact properties hold strings and numbers: a boolean is kept as its text.
      properties[key] = typeof value === 'boolean' ? String(value) : (value as PropertyValue);
    }
    if (Object.keys(properties).length) changes.properties = properties;
  }
  return changes;
}

function asBoolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw validation('`config.unsubscribed` must resolve to a boolean.');
}

export async function contactDeleteStep(db: Db, step: ClaimedStep): Promise<void> {
  const { run } = step;
  await db.tx(async (q) => {
    if (!(await deleteContact(q, run.account_id, run.contact_id))) throw notFound('Contact');
    await completeStep(q, step.id, step.runId, guardOf(step), { output: { contact_id: run.contact_id, deleted: true }, taken: 'default' });
  });
}

export async function addToSegmentStep(db: Db, step: ClaimedStep, def: StepDef): Promise<void> {
  const { run } = step;
  const segmentId = def.config.segment_id as string;
  await db.tx(async (q) => {
    if (!(await findContact(q, run.account_id, run.contact_id))) throw notFound('Contact');
    await addContactToSegment(q, run.account_id, run.contact_id, segmentId);
    await completeStep(q, step.id, step.runId, guardOf(step), { output: { contact_id: run.contact_id, segment_id: segmentId }, taken: 'default' });
  });
}
