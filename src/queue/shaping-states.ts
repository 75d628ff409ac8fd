// Owner of `delivery_shaping` (0031): each node's delivery worker publishes its traffic shaping
// states (delivery/shaping.ts) there every few seconds, so the queue view of any node shows how
// fast Postline sends to each destination, what slowed it and when. Only destinations with a
// limit or a throttling reply are kept: an unlimited destination that never complained has
// nothing to show.
import type { Db, Queryable } from '../db/database.js';

/** One destination's shaping on this node, as delivery/shaping.ts keeps it. */
interface ShapingState {
  destination: string;
  limits: { connections: number; messagesPerConnection: number; messagesPerMinute: number | null };
  ratePerMinute: number | null;
  /** Slowed by the destination's replies and not yet recovered. */
  throttled: boolean;
  sentLastMinute: number;
  lastSignal: { reply: string; at: Date } | null;
}

/** Replaces the node's rows with `states` (the interesting ones). */
export async function publishShapingStates(db: Db, nodeId: string, states: ShapingState[]): Promise<void> {
  const shown = states.filter((s) => s.ratePerMinute !== null || s.lastSignal !== null);
  await db.tx(async (q) => {
    await q.query(`DELETE FROM delivery_shaping WHERE node_id = $1 AND NOT (destination = ANY($2::text[]))`, [nodeId, shown.map((s) => s.destination)]);
    if (shown.length === 0) return;
    await q.query(
      `INSERT INTO delivery_shaping AS s (node_id, destination, rate_per_minute, limit_per_minute, connections, messages_per_connection,
                                          sent_last_minute, last_signal, last_signal_at, throttled)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::text[], $9::timestamptz[], $10::boolean[])
       ON CONFLICT (node_id, destination) DO UPDATE SET
         rate_per_minute = EXCLUDED.rate_per_minute, limit_per_minute = EXCLUDED.limit_per_minute, connections = EXCLUDED.connections,
         messages_per_connection = EXCLUDED.messages_per_connection, sent_last_minute = EXCLUDED.sent_last_minute,
         last_signal = EXCLUDED.last_signal, last_signal_at = EXCLUDED.last_signal_at, throttled = EXCLUDED.throttled, updated_at = now()`,
      [
        nodeId,
        shown.map((s) => s.destination),
        shown.map((s) => s.ratePerMinute),
        shown.map((s) => s.limits.messagesPerMinute),
        shown.map((s) => s.limits.connections),
        shown.map((s) => s.limits.messagesPerConnection),
        shown.map((s) => s.sentLastMinute),
        shown.map((s) => s.lastSignal?.reply ?? null),
        shown.map((s) => s.lastSignal?.at ?? null),
        shown.map((s) => s.throttled),
      ],
    );
  });
}

export interface ShapingView {
  destination: string;
  /** Messages a minute all nodes may send now, summed; null when some node is not limited. */
  rate_per_minute: number | null;
  limit_per_minute: number | null;
  connections: number;
  messages_per_connection: number;
  sent_last_minute: number;
  /** `throttled`: slowed by the destination's replies (on some node); `limited`: at its configured rate. */
  state: 'throttled' | 'limited' | 'normal';
  last_signal: { reply: string; at: string } | null;
  nodes: number;
}

/** A destination's shaping summed over the live nodes; its last signal's reply and time are written together. */
type ShapingRow = {
  destination: string;
  rate: number | null;
  configured: number | null;
  connections: number;
  per_connection: number;
  sent: number;
  nodes: number;
  throttled: boolean;
} & ({ last_signal: string; last_signal_at: Date } | { last_signal: null; last_signal_at: null });

/** The destinations' shaping over the live nodes, throttled first. */
export async function readShapingStates(q: Queryable): Promise<ShapingView[]> {
  const rows = await q.query<ShapingRow>(
    `SELECT destination,
            CASE WHEN bool_and(rate_per_minute IS NOT NULL) THEN sum(rate_per_minute) END AS rate,
            CASE WHEN bool_and(limit_per_minute IS NOT NULL) THEN sum(limit_per_minute) END AS configured,
            max(connections) AS connections, max(messages_per_connection) AS per_connection,
            sum(sent_last_minute) AS sent, count(*) AS nodes, bool_or(throttled) AS throttled,
            (array_agg(last_signal ORDER BY last_signal_at DESC NULLS LAST))[1] AS last_signal, max(last_signal_at) AS last_signal_at
       FROM delivery_shaping WHERE updated_at > now() - interval '2 minutes'
      GROUP BY destination`,
  );
  const views = rows.map((r): ShapingView => {
    const rate = r.rate === null ? null : Number(r.rate);
    const configured = r.configured === null ? null : Number(r.configured);
    return {
      destination: r.destination,
      rate_per_minute: rate,
      limit_per_minute: configured,
      connections: Number(r.connections),
      messages_per_connection: Number(r.per_connection),
      sent_last_minute: Number(r.sent),
      state: r.throttled ? 'throttled' : rate !== null ? 'limited' : 'normal',
      last_signal: r.last_signal_at ? { reply: r.last_signal, at: r.last_signal_at.toISOString() } : null,
      nodes: Number(r.nodes),
    };
  });
  const order = { throttled: 0, limited: 1, normal: 2 };
  return views.sort((a, b) => order[a.state] - order[b.state] || (a.destination < b.destination ? -1 : 1));
}
