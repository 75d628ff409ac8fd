// The broadcast fan-out (runs with the `worker` role): turns each due broadcast into one email
// per contact, chunk by chunk (fan-out-chunk.ts), until the segment is walked and the
// broadcast is `sent`.
//
// Claiming: broadcasts are leased work (concurrency/leased-work.ts, whose contract they keep). A
// broadcast that is due (scheduled_at passed, or sent without a time) or whose lease ran out is
// taken with FOR UPDATE SKIP LOCKED and leased to this node, which extends the lease with every
// committed chunk. Any number of nodes may run it: they take different broadcasts, and a node
// that dies stops extending its lease (or is reaped), so another one resumes after the last
// committed chunk. Chunks are fenced by the cursor they start from (fan-out-chunk.ts), the
// give-back by the claim token. Nothing lives in memory: after a restart (or a node being
// down at the due time) the next poll finds every overdue broadcast and starts it.
//
// One broadcast at a time per node, chunk after chunk, two in flight: the next one is read and
// rendered while the previous one is committed. The emails are queued without their messages:
// the delivery workers compose and sign them (src/emails/compose-deferred.ts).
// Broadcast mail is queued with bulk priority: the delivery claim serves transactional mail
// first (src/queue/claim.ts).
//
// Shutdown (stop): the chunk in progress finishes (its transaction commits or rolls back),
// then the lease is given back so another node need not wait for it to run out.
import { LeasedWork } from '../concurrency/leased-work.js';
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { BROADCAST_COLUMNS, type BroadcastRow } from './broadcast-view.js';
import { acceptChunk, BroadcastLost, markSent, prepareChunk, sendingBroadcast, type FanOutDeps, type SendingBroadcast } from './fan-out-chunk.js';

const POLL_MS = 250;
const ERROR_BACKOFF_MS = 1_000;
/** A broadcast whose chunk failed (say, its domain is no longer verified) is tried again after this. */
const RETRY_AFTER_MS = 10_000;
export const LEASE_MS = 60_000;

/**
 * The broadcasts being fanned out as leased work: lease_until is the lease, claim_token the
 * token. A stalled old holder whose claim was released cannot add a chunk twice either: each
 * chunk moves the cursor only from where it found it (fan-out-chunk.ts).
 */
export const broadcastLeases = new LeasedWork({
  table: 'broadcasts',
  key: { column: 'id', type: 'uuid' },
  lease: 'lease_until',
  token: 'claim_token',
  due: "status IN ('scheduled', 'sending') AND (status = 'sending' OR scheduled_at <= now()) AND (lease_until IS NULL OR lease_until < now())",
  held: "status = 'sending' AND lease_until > now()",
  released: 'lease_until = NULL, updated_at = now()',
});

type ClaimedBroadcast = SendingBroadcast & { claimToken: string };

/** Takes one due broadcast, or one whose lease ran out, for this node. */
export async function claimBroadcast(db: Db, leaseMs = LEASE_MS, nodeId?: string): Promise<ClaimedBroadcast | undefined> {
  const [row] = await broadcastLeases.claim<BroadcastRow>(db, {
    limit: 1,
    leaseMs,
    nodeId,
    order: 'scheduled_at NULLS FIRST, created_at',
    set: "status = 'sending', sent_at = COALESCE(t.sent_at, now()), updated_at = now()",
    returning: BROADCAST_COLUMNS.split(', ')
      .map((c) => `t.${c}`)
      .join(', '),
  });
  return row && { ...sendingBroadcast(row), claimToken: row.fence_token };
}

/** Gives the lease back (now, or after `delayMs`) if this node still holds the broadcast where it left it. */
async function releaseLease(db: Db, b: ClaimedBroadcast, delayMs = 0): Promise<void> {
  await broadcastLeases.settle(db, [{ key: b.id, token: b.claimToken }], {
    set: `lease_until = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 millisecond' END`,
    where: "t.status = 'sending' AND t.cursor IS NOT DISTINCT FROM $3::uuid",
    params: [b.cursor, delayMs],
  });
}

export class BroadcastFanOut {
  private loop: PollingLoop;

  constructor(private deps: FanOutDeps & { logger: Logger /** This node's id (cluster/node-presence.ts), written on its claims. */; nodeId?: string }) {
    this.loop = new PollingLoop({
      logger: deps.logger,
      failure: 'claiming broadcasts failed',
      idleMs: POLL_MS,
      errorBackoffMs: ERROR_BACKOFF_MS,
      turn: async () => {
        const broadcast = await claimBroadcast(deps.db, deps.leaseMs, deps.nodeId);
        if (!broadcast) return false;
        await this.send(broadcast);
        return true;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /**
   * Chunks until the broadcast is sent, lost to cancel or another node, failing, or we stop.
   * Two chunks are in flight: the next is prepared while the previous one commits (acceptChunk
   * commits them in order).
   */
  private async send(broadcast: ClaimedBroadcast): Promise<void> {
    const { db, logger } = this.deps;
    let from = broadcast.cursor;
    let accepting: Promise<void> | undefined;
    try {
      while (this.loop.running) {
        const chunk = await prepareChunk(this.deps, broadcast, from);
        if (!chunk) {
          await accepting;
          await markSent(db, broadcast);
          return;
        }
        const previous = accepting;
        accepting = acceptChunk(this.deps, broadcast, chunk, previous);
        accepting.catch(() => {}); // awaited below or at the end; a failure surfaces there
        from = chunk.last;
        await previous;
      }
      await accepting;
      await releaseLease(db, broadcast);
    } catch (err) {
      await accepting?.catch(() => {}); // settled (it commits nothing after a failure) before the lease is given back
      if (err instanceof BroadcastLost) return;
      logger.error({ err, broadcast: broadcast.id }, 'broadcast fan-out failed; retrying later');
      await releaseLease(db, broadcast, RETRY_AFTER_MS).catch(() => {});
    }
  }
}
