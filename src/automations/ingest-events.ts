// Acting on sent events (part of the automation worker). POST /events/send commits each event
// to `received_events` (src/custom-events/send-event.ts); here a batch of them is taken with
// SKIP LOCKED and, in one transaction that also deletes them:
//
//   start runs    every enabled automation of the account whose trigger names the event gets
//                 a run for the event's contact: its trigger step completed, the steps after
//                 it due now (the step loop takes them from there);
//   wake waits    every step of that contact's running runs waiting for an event of this name
//                 whose filter_rule holds completes along `event_received`.
//
// So each event is acted on exactly once: a crash before the commit leaves it in the inbox,
// a commit removes it. A wait_for_event step sees only events taken after it began waiting
// (its step ran): an event sent earlier has already been acted on and is gone.
import crypto from 'node:crypto';
import type { Body } from '../api/validate.js';
import { findContact, type Contact } from '../audience/contact-store.js';
import type { Db, Queryable } from '../db/database.js';
import { completeStep, StaleStep } from './advance.js';
import { successors, type ConnectionDef, type StepDef } from './graph.js';
import { evaluateRule, type Rule } from './rules.js';
import { fieldReader, mentionsContact, type RunContext } from './run-context.js';

interface ReceivedEvent {
  id: number;
  account_id: string;
  name: string;
  contact_id: string;
  payload: Body;
}

interface TriggeredAutomation {
  id: string;
  account_id: string;
  trigger_event: string;
  steps: StepDef[];
  connections: ConnectionDef[];
}

const BATCH = 100;

/** Takes up to `limit` sent events and acts on them; returns how many. */
export async function ingestEvents(db: Db, limit = BATCH): Promise<number> {
  return db.tx(async (q) => {
    const events = await q.query<ReceivedEvent>(
      `DELETE FROM received_events
        WHERE id IN (SELECT id FROM received_events ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, account_id, name, contact_id, payload`,
      [limit],
    );
    if (events.length === 0) return 0;
    events.sort((a, b) => a.id - b.id);
    await startRuns(q, events);
    for (const event of events) await wakeWaitingSteps(q, event);
    return events.length;
  });
}

async function startRuns(q: Queryable, events: ReceivedEvent[]): Promise<void> {
  const automations = await q.query<TriggeredAutomation>(
    `SELECT id, account_id, trigger_event, steps, connections FROM automations
      WHERE status = 'enabled' AND (account_id, trigger_event) IN (SELECT * FROM unnest($1::uuid[], $2::text[]))`,
    [events.map((e) => e.account_id), events.map((e) => e.name)],
  );
  if (automations.length === 0) return;
  const runs: unknown[][] = [];
  const steps: unknown[][] = [];
  for (const event of events) {
    for (const automation of automations) {
      if (automation.account_id !== event.account_id || automation.trigger_event !== event.name) continue;
      const runId = crypto.randomUUID();
      const context: RunContext = { event_name: event.name, event: event.payload, wait_events: {} };
      runs.push([
        runId,
        automation.id,
        automation.account_id,
        event.contact_id,
        JSON.stringify(automation.steps),
        JSON.stringify(automation.connections),
        JSON.stringify(context),
      ]);
      const trigger = automation.steps.find((s) => s.type === 'trigger')!;
      steps.push([runId, event.account_id, trigger.key, 'trigger', 0, 'completed', JSON.stringify({ event: event.name, payload: event.payload })]);
      successors(automation.connections, trigger.key, 'default').forEach((key, i) => {
        steps.push([runId, event.account_id, key, automation.steps.find((s) => s.key === key)!.type, i + 1, 'pending', null]);
      });
    }
  }
  const column = (rows: unknown[][], k: number) => rows.map((r) => r[k]);
  await q.query(
    `INSERT INTO automation_runs (id, automation_id, account_id, contact_id, steps, connections, context, status)
     SELECT *, 'running' FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::jsonb[], $6::jsonb[], $7::jsonb[])`,
    [0, 1, 2, 3, 4, 5, 6].map((k) => column(runs, k)),
  );
  await q.query(
    `INSERT INTO automation_run_steps (id, run_id, account_id, key, type, position, status, output, started_at, completed_at, due_at)
     SELECT gen_random_uuid(), v.run_id, v.account_id, v.key, v.type, v.position, v.status, v.output,
            CASE WHEN v.status = 'completed' THEN now() END, CASE WHEN v.status = 'completed' THEN now() END,
            CASE WHEN v.status = 'pending' THEN now() END
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::jsonb[])
         AS v(run_id, account_id, key, type, position, status, output)`,
    [0, 1, 2, 3, 4, 5, 6].map((k) => column(steps, k)),
  );
  // A trigger leading nowhere: the run is over as soon as it starts.
  await q.query(
    `UPDATE automation_runs r SET status = 'completed', completed_at = now()
      WHERE r.id = ANY($1::uuid[]) AND NOT EXISTS (SELECT 1 FROM automation_run_steps s WHERE s.run_id = r.id AND s.status = 'pending')`,
    [column(runs, 0)],
  );
}

async function wakeWaitingSteps(q: Queryable, event: ReceivedEvent): Promise<void> {
  const waiting = await q.query<{ id: string; run_id: string; key: string; steps: StepDef[]; context: RunContext }>(
    `SELECT s.id, s.run_id, s.key, r.steps, r.context
       FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id
      WHERE s.account_id = $1 AND s.status = 'waiting' AND s.wait_event = $2 AND r.contact_id = $3 AND r.status = 'running'
      ORDER BY s.created_at`,
    [event.account_id, event.name, event.contact_id],
  );
  let contact: Contact | undefined | null = null; // null: not loaded yet
  for (const step of waiting) {
    const filter = step.steps.find((s) => s.key === step.key)?.config.filter_rule as Rule | undefined;
    if (filter) {
      if (contact === null && mentionsContact(filter)) contact = await findContact(q, event.account_id, event.contact_id);
      if (!evaluateRule(filter, fieldReader(step.context, contact ?? undefined, event.payload))) continue;
    }
    try {
      await completeStep(
        q,
        step.id,
        step.run_id,
        { waiting: true },
        {
          output: { event: event.name, payload: event.payload },
          taken: 'event_received',
          received: { name: event.name, payload: event.payload },
        },
      );
    } catch (err) {
      if (!(err instanceof StaleStep)) throw err; // timed out or cancelled meanwhile: not ours
    }
  }
}
