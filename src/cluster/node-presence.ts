// Worker nodes' presence. Each event loop that claims work (a worker node; beside api/smtp, the
// worker thread and the main thread's queueing parts) has an id, keeps a row in `nodes` and
// beats every HEARTBEAT_MS. Every such node also looks, at each beat, for nodes silent for
// DEAD_AFTER_MS: in one transaction it deletes them and hands what they had claimed back
// through the owners' release functions (deliveries, webhook messages, contact imports,
// broadcast fan-out, automation steps, and the idempotency keys that the api and smtp roles
// beside it claimed and had not answered; see worker-role.ts), so a crashed node's work is taken
// up within seconds rather than when its leases run out (they remain the fallback). A node
// presumed dead that was only stalled finds its claims gone: its writes are fenced off by each
// owner's lease or token, and at worst work that was in flight is done twice.
import crypto from 'node:crypto';
import os from 'node:os';
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Db, Queryable } from '../db/database.js';
import type { Logger } from '../logger.js';

const HEARTBEAT_MS = 2_000;
/** Five missed beats: long enough that a busy event loop or a slow commit is not taken for a crash. */
const DEAD_AFTER_MS = 10_000;

/** Gives back the rows that `nodes` had claimed; returns how many. Called in the reaping transaction. */
type ReleaseClaimsOfNodes = (q: Queryable, nodes: string[]) => Promise<number>;

export class NodePresence {
  private loop: PollingLoop;

  constructor(
    private db: Db,
    private logger: Logger,
    private releases: ReleaseClaimsOfNodes[],
    readonly id: string = crypto.randomUUID(),
  ) {
    this.loop = new PollingLoop({
      logger,
      failure: 'node heartbeat failed',
      idleMs: HEARTBEAT_MS,
      errorBackoffMs: HEARTBEAT_MS,
      turn: async () => {
        await this.beat();
        await this.reapDead();
        return false;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Call after the node's workers have stopped and given their claims back. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.db.query('DELETE FROM nodes WHERE id = $1', [this.id]);
  }

  /** An upsert: a node that was presumed dead (and deleted) while it was only slow comes back. */
  private async beat(): Promise<void> {
    await this.db.query(
      `INSERT INTO nodes (id, host, pid) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [this.id, os.hostname(), process.pid],
    );
  }

  private async reapDead(): Promise<void> {
    await this.db.tx(async (q) => {
      const dead = await q.query<{ id: string; host: string; pid: number }>(
        `DELETE FROM nodes WHERE heartbeat_at < now() - $1 * interval '1 millisecond' RETURNING id, host, pid`,
        [DEAD_AFTER_MS],
      );
      if (dead.length === 0) return;
      let released = 0;
      for (const release of this.releases) {
        released += await release(
          q,
          dead.map((n) => n.id),
        );
      }
      this.logger.warn({ nodes: dead, released }, 'nodes stopped beating: what they had claimed is queued again');
    });
  }
}
