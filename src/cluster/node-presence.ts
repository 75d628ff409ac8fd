// Worker nodes' presence. Each event loop that claims work (a worker node; beside api/smtp, the
// worker thread and the main thread's queueing parts) has an id, keeps a row in `nodes` and
// beats every HEARTBEAT_MS. Every such node also looks, at each beat, for nodes silent for
// DEAD_AFTER_MS: in one transaction it deletes them and releases what they had claimed in every
// leased table it is given (worker-role.ts lists them: deliveries, webhook messages, contact
// imports, broadcast fan-out, automation steps, inbox agent jobs, and the idempotency keys that
// the api and smtp roles beside it claimed and had not answered), so a crashed node's work is
// taken up within seconds rather than when its leases run out (they remain the fallback). The
// contract this keeps, stalled nodes included, is concurrency/leased-work.ts's.
//
// A node never reaps a node of its own process (same host and pid: the worker thread beside
// the main thread): that process is alive, since it is running this. After a database outage
// longer than DEAD_AFTER_MS the first of them to beat again would otherwise take the other for
// dead and release its claims, an SMTP attempt in flight among them, which was then sent again.
// Its own claims are the worker's to give back (delivery/worker.ts releaseForgotten).
import crypto from 'node:crypto';
import os from 'node:os';
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Db, Queryable } from '../db/database.js';
import type { Logger } from '../logger.js';

const HEARTBEAT_MS = 2_000;
/** Five missed beats: long enough that a busy event loop or a slow commit is not taken for a crash. */
const DEAD_AFTER_MS = 10_000;

/** A leased table (concurrency/leased-work.ts LeasedWork) whose dead nodes' claims the reaping transaction releases. */
interface NodeClaims {
  readonly table: string;
  releaseOfNodes(q: Queryable, nodeIds: string[]): Promise<number>;
}

export class NodePresence {
  private loop: PollingLoop;

  constructor(
    private db: Db,
    private logger: Logger,
    private leased: NodeClaims[],
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
        `DELETE FROM nodes WHERE heartbeat_at < now() - $1 * interval '1 millisecond' AND NOT (host = $2 AND pid = $3) RETURNING id, host, pid`,
        [DEAD_AFTER_MS, os.hostname(), process.pid],
      );
      if (dead.length === 0) return;
      const released: Record<string, number> = {};
      for (const work of this.leased) {
        const n = await work.releaseOfNodes(
          q,
          dead.map((d) => d.id),
        );
        if (n > 0) released[work.table] = n;
      }
      this.logger.warn({ nodes: dead, released }, 'nodes stopped beating: what they had claimed is queued again');
    });
  }
}
