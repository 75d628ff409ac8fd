// What the crash soak holds Postline to once the last restart has drained: each acknowledged
// email at the MX sink (once, or twice within the at-least-once bound), each idempotency key
// one email, each broadcast one email per contact, each import's rows once, each acknowledged
// event one automation run whose every step ran once, each webhook message delivered. Counted
// from the sink, the webhook endpoint and Postline's tables (read, never written).
import type { MxSink } from '../../test/support/mx-sink.js';
import type { Ledger, SoakWebhookEndpoint } from './soak-clients.js';
import type { SoakAccount } from './soak-work.js';

type Sql = <T = any>(query: string, params?: unknown[]) => Promise<T[]>;

/** Message-ID <emailId@…> of every message the sink got → how many times. */
function sinkCounts(sink: MxSink): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of sink.messages) {
    // nodemailer folds a Message-ID longer than a line onto the next one.
    const id = /^Message-ID:\s*<([^@>\s]+)@/im.exec(m.raw.subarray(0, 16_384).toString('latin1'))?.[1] ?? '(none)';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

interface Delivered {
  expected: number;
  delivered: number;
  lost: number;
  /** Extra copies: a message received n times counts n − 1. */
  duplicates: number;
}

function deliveredOf(ids: Iterable<string>, counts: Map<string, number>): Delivered {
  const result = { expected: 0, delivered: 0, lost: 0, duplicates: 0 };
  for (const id of ids) {
    result.expected++;
    const n = counts.get(id) ?? 0;
    if (n === 0) result.lost++;
    else result.delivered++;
    result.duplicates += Math.max(0, n - 1);
  }
  return result;
}

/** True once nothing is left to do: the queue, broadcasts, imports, automation steps and webhook messages all final. */
export async function drained(sql: Sql): Promise<boolean> {
  const [row] = await sql(
    `SELECT (SELECT count(*) FROM deliveries WHERE status = 'queued')
          + (SELECT count(*) FROM broadcasts WHERE status NOT IN ('sent', 'canceled', 'draft'))
          + (SELECT count(*) FROM contact_imports WHERE status NOT IN ('completed', 'failed'))
          + (SELECT count(*) FROM automation_run_steps WHERE status IN ('pending', 'running', 'waiting'))
          + (SELECT count(*) FROM received_events)
          + (SELECT count(*) FROM webhook_messages WHERE status IN ('pending', 'attempting')) AS left`,
  );
  return Number(row.left) === 0;
}

export interface SoakFindings {
  acknowledged: Delivered & { api: number; smtp: number };
  /** Idempotency keys (API batches, SMTP submissions) that made more than one email. */
  keysAcceptedTwice: number;
  broadcasts: Delivered & { count: number; contacts: number; wrongSize: number };
  automations: Delivered & { eventsAcknowledged: number; runsOfAcknowledged: number; contactsWithTwoRuns: number; stepsNotOnce: number };
  imports: { count: number; rowsExpected: number; contactsFound: number; inSegment: number; notCompleted: number };
  webhooks: {
    messages: number;
    delivered: number;
    missing: number;
    duplicates: number;
    notSucceeded: number;
    eventsWithoutMessage: number;
    badSignatures: number;
  };
  /** Deliveries of the sink whose Message-ID is not an email of Postline's. */
  unknownAtSink: number;
  queue: Record<string, number>;
}

export async function findings(
  sql: Sql,
  sink: MxSink,
  ledger: Ledger,
  endpoint: SoakWebhookEndpoint,
  account: SoakAccount,
  imports: { prefix: string; rows: number }[],
  readers: number,
): Promise<SoakFindings> {
  const counts = sinkCounts(sink);
  const kinds = [...ledger.acknowledged.values()];
  const acknowledged = {
    ...deliveredOf(ledger.acknowledged.keys(), counts),
    api: kinds.filter((k) => k === 'api').length,
    smtp: kinds.filter((k) => k === 'smtp').length,
  };
  const [twice] = await sql(
    `SELECT count(*)::int AS n FROM (SELECT subject FROM emails WHERE subject LIKE 'soak api %' OR subject LIKE 'soak smtp %' GROUP BY subject HAVING count(*) > 1) t`,
  );

  const broadcastRows = await sql(`SELECT b.id, count(e.id)::int AS emails FROM broadcasts b LEFT JOIN emails e ON e.broadcast_id = b.id GROUP BY b.id`);
  const broadcastEmails = await sql(`SELECT id FROM emails WHERE broadcast_id IS NOT NULL`);
  const broadcasts = {
    ...deliveredOf(
      broadcastEmails.map((r) => r.id),
      counts,
    ),
    count: broadcastRows.length,
    contacts: readers,
    wrongSize: broadcastRows.filter((b) => b.emails !== readers).length,
  };

  const runs = await sql(
    `SELECT split_part(c.email, '@', 1) AS local, count(DISTINCT r.id)::int AS runs
       FROM automation_runs r JOIN contacts c ON c.id = r.contact_id WHERE r.automation_id = $1 GROUP BY 1`,
    [account.automationId],
  );
  const runsOf = new Map(runs.map((r) => [r.local as string, r.runs as number]));
  const [steps] = await sql(
    `SELECT count(*)::int AS n FROM automation_runs r
      WHERE r.automation_id = $1
        AND (SELECT count(*) FILTER (WHERE s.status = 'completed') FROM automation_run_steps s WHERE s.run_id = r.id) <> 3`,
    [account.automationId],
  );
  const automationEmails = await sql(`SELECT DISTINCT email_id FROM deliveries WHERE recipient LIKE 'auto-%'`);
  const automations = {
    ...deliveredOf(
      automationEmails.map((r) => r.email_id),
      counts,
    ),
    eventsAcknowledged: ledger.eventsAcknowledged.size,
    runsOfAcknowledged: [...ledger.eventsAcknowledged].filter((n) => runsOf.get(`auto-${n}`) === 1).length,
    contactsWithTwoRuns: runs.filter((r) => r.runs > 1).length,
    stepsNotOnce: steps.n,
  };

  const importRows = await sql(`SELECT status FROM contact_imports`);
  const found = await sql(`SELECT split_part(email, '-', 1) AS prefix, count(*)::int AS n FROM contacts WHERE email LIKE 'imp%' GROUP BY 1`);
  const [inSegment] = await sql(`SELECT count(*)::int AS n FROM segment_contacts WHERE segment_id = $1`, [account.importedSegment]);
  const importFindings = {
    count: importRows.length,
    rowsExpected: imports.reduce((sum, i) => sum + i.rows, 0),
    contactsFound: found.filter((f) => imports.some((i) => i.prefix === f.prefix)).reduce((sum, f) => sum + f.n, 0),
    inSegment: inSegment.n,
    notCompleted: importRows.filter((r) => r.status !== 'completed').length,
  };

  const messages = await sql(`SELECT id, status FROM webhook_messages WHERE webhook_id = $1`, [account.webhookId]);
  const [orphanEvents] = await sql(
    `SELECT count(*)::int AS n FROM events e JOIN webhooks w ON w.id = $1
      WHERE e.type = ANY (w.events) AND e.created_at > w.created_at
        AND NOT EXISTS (SELECT 1 FROM webhook_messages m WHERE m.webhook_id = w.id AND m.event_id = e.id)`,
    [account.webhookId],
  );
  const webhooks = {
    messages: messages.length,
    delivered: messages.filter((m) => endpoint.deliveries.has(m.id)).length,
    missing: messages.filter((m) => !endpoint.deliveries.has(m.id)).length,
    duplicates: [...endpoint.deliveries.values()].reduce((sum, n) => sum + n - 1, 0),
    notSucceeded: messages.filter((m) => m.status !== 'success').length,
    eventsWithoutMessage: orphanEvents.n,
    badSignatures: endpoint.badSignatures,
  };

  const known = new Set((await sql(`SELECT id::text FROM emails`)).map((r) => r.id));
  const queue = Object.fromEntries((await sql(`SELECT status, count(*)::int AS n FROM deliveries GROUP BY 1`)).map((r) => [r.status, r.n]));
  return {
    acknowledged,
    keysAcceptedTwice: twice.n,
    broadcasts,
    automations,
    imports: importFindings,
    webhooks,
    unknownAtSink: [...counts].reduce((sum, [id, n]) => sum + (known.has(id) ? 0 : n), 0),
    queue,
  };
}
