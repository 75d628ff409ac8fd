// Carrying out one claimed step (claim-steps.ts) by its type, and recording the outcome with
// advance.ts. An ApiError (a template gone, a domain not verified, a contact deleted) fails the
// step and its run for good, with the error shown in GET …/runs/:id; any other error (the
// database away) leaves the claim to run out, so the step is tried again after the lease.
import { ApiError } from '../api/errors.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from '../emails/accept.js';
import { findContact } from '../audience/contact-store.js';
import { completeStep, failStep, StaleStep, waitStep, type Guard } from './advance.js';
import type { ClaimedStep } from './claim-steps.js';
import { addToSegmentStep, contactDeleteStep, contactUpdateStep } from './contact-steps.js';
import { parseHumanDuration } from './duration.js';
import type { StepDef } from './graph.js';
import { evaluateRule, type Rule } from './rules.js';
import { fieldReader, mentionsContact } from './run-context.js';
import { sendEmailStep } from './send-email-step.js';
import type { StepType } from './step-config.js';

interface StepDeps {
  db: Db;
  accept: AcceptDeps;
}

type Handler = (deps: StepDeps, step: ClaimedStep, def: StepDef, guard: Guard) => Promise<void>;

const HANDLERS: Record<StepType, Handler> = {
  // Completed when its run starts (ingest-events.ts); never claimed, kept for completeness.
  trigger: ({ db }, step, _def, guard) => db.tx((q) => completeStep(q, step.id, step.runId, guard, { output: {}, taken: 'default' })),

  delay: ({ db }, step, def, guard) => {
    const duration = def.config.duration as string;
    if (step.was === 'waiting') {
      return db.tx((q) => completeStep(q, step.id, step.runId, guard, { output: { duration }, taken: 'default' }));
    }
    return db.tx((q) => waitStep(q, step.id, step.runId, guard, { afterMs: parseHumanDuration(duration)!, output: { duration } }));
  },

  wait_for_event: ({ db }, step, def, guard) => {
    const { event_name: event, timeout } = def.config as { event_name: string; timeout?: string };
    if (step.was === 'waiting') {
      // Due while waiting: the timeout came first (an arriving event clears due_at: ingest-events.ts).
      return db.tx((q) => completeStep(q, step.id, step.runId, guard, { output: { event_name: event, timed_out: true }, taken: 'timeout' }));
    }
    const afterMs = timeout === undefined ? null : parseHumanDuration(timeout)!;
    return db.tx((q) => waitStep(q, step.id, step.runId, guard, { afterMs, event, output: { event_name: event } }));
  },

  condition: async ({ db }, step, def, guard) => {
    const rule = def.config as unknown as Rule;
    const contact = mentionsContact(rule) ? await findContact(db, step.run.account_id, step.run.contact_id) : undefined;
    const met = evaluateRule(rule, fieldReader(step.run.context, contact));
    await db.tx((q) => completeStep(q, step.id, step.runId, guard, { output: { result: met }, taken: met ? 'condition_met' : 'condition_not_met' }));
  },

  send_email: ({ db, accept }, step, def) => sendEmailStep(db, accept, step, def),
  contact_update: ({ db }, step, def) => contactUpdateStep(db, step, def),
  contact_delete: ({ db }, step) => contactDeleteStep(db, step),
  add_to_segment: ({ db }, step, def) => addToSegmentStep(db, step, def),
};

export async function executeStep(deps: StepDeps, step: ClaimedStep): Promise<void> {
  const guard: Guard = { claimToken: step.claimToken };
  const def = step.run.steps.find((s) => s.key === step.key);
  try {
    if (!def) throw new ApiError('validation_error', `The run's graph has no step \`${step.key}\`.`);
    await HANDLERS[def.type](deps, step, def, guard);
  } catch (err) {
    if (err instanceof StaleStep) return;
    if (!(err instanceof ApiError)) throw err;
    await deps.db
      .tx((q) => failStep(q, step.id, step.runId, guard, { name: err.errorName, message: err.message }))
      .catch((e) => {
        if (!(e instanceof StaleStep)) throw e;
      });
  }
}
