// The contact import worker (runs with the `worker` role). It owns getting every queued
// import to completed or failed: it claims the oldest queued import (or one whose holder's
// lease ran out), runs it batch by batch (run-import.ts), and deletes uploads whose request
// died before the import was queued.
//
// Any number of nodes may run it: imports are leased work (concurrency/leased-work.ts, whose
// contract they keep): a claim takes the row with SKIP LOCKED and sets a lease token that fences
// every batch; each batch renews the lease. A node that dies leaves its import to be taken over
// (at once when it is reaped, else when the lease runs out), and the taker resumes after the
// last committed batch. One import at a time per node: imports are bulk work and must not crowd
// out delivery on the same cores.
//
// Shutdown (stop): the import in progress stops after its current batch and gives its lease
// back, so the next start (this node or another) resumes it at once.
import { LeasedWork } from '../../concurrency/leased-work.js';
import { PollingLoop } from '../../concurrency/polling-loop.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { Subscription } from '../contact-store.js';
import type { ColumnMap, OnConflict } from './import-options.js';
import { purgeAbandonedUploads } from './import-upload.js';
import { giveUpImport, runImport } from './run-import.js';
import { LeaseLost, type ImportJob } from './write-batch.js';

const POLL_MS = 250;
const PURGE_EVERY_MS = 60_000;
/** Renewed by every batch; long enough for a slow batch, short enough to take over a dead node's import soon. */
const LEASE_MS = 2 * 60_000;
/** Runs that end in an unexpected error (not a bad file) before the import is failed. */
const MAX_ATTEMPTS = 5;
const ERROR_BACKOFF_MS = 5_000;

export class ContactImportWorker {
  private loop: PollingLoop;
  private lastPurge = 0;

  constructor(
    private db: Db,
    private logger: Logger,
    /** This node's id (cluster/node-presence.ts), written on its claims. */
    private nodeId?: string,
  ) {
    this.loop = new PollingLoop({
      logger,
      failure: 'claiming a contact import failed',
      idleMs: POLL_MS,
      errorBackoffMs: ERROR_BACKOFF_MS,
      turn: async () => {
        await this.maybePurge();
        const claimed = await claimImport(this.db, this.nodeId);
        if (!claimed) return false;
        await this.run(claimed.job, claimed.columnMap);
        return true;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops after the current batch; the import's lease is given back. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async run(job: ImportJob, columnMap: ColumnMap): Promise<void> {
    const log = this.logger.child({ importId: job.id });
    try {
      const outcome = await runImport(this.db, job, columnMap, () => !this.loop.running);
      if (outcome === 'stopped') await releaseImport(this.db, job, 0, false);
      log.info({ outcome, rows: job.done }, 'contact import ran');
    } catch (err) {
      if (err instanceof LeaseLost) {
        log.warn('contact import taken over by another worker');
        return;
      }
      log.error({ err }, 'contact import failed; it will be retried');
      await this.recordFailure(job, err as Error).catch((e) => log.error({ err: e }, 'recording the import failure failed'));
      await this.loop.sleep(ERROR_BACKOFF_MS);
    }
  }

  /** Gives the import back for a later run, or fails it after MAX_ATTEMPTS. */
  private async recordFailure(job: ImportJob, err: Error): Promise<void> {
    const attempts = await releaseImport(this.db, job, ERROR_BACKOFF_MS, true);
    if (attempts >= MAX_ATTEMPTS) {
      await giveUpImport(this.db, job.id, `The import stopped after ${attempts} failed attempts: ${err.message}`);
    }
  }

  private async maybePurge(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    const purged = await purgeAbandonedUploads(this.db);
    if (purged > 0) this.logger.info({ purged }, 'deleted abandoned contact import uploads');
  }
}

/** The imports as leased work: lease_until is the lease, lease_token the token. */
export const importLeases = new LeasedWork({
  table: 'contact_imports',
  key: { column: 'id', type: 'uuid' },
  lease: 'lease_until',
  token: 'lease_token',
  due: "status = 'queued' OR (status = 'in_progress' AND lease_until < now())",
  held: "status = 'in_progress' AND lease_token IS NOT NULL",
  released: 'lease_until = now()',
});

/** What a claim of an import returns. */
interface ClaimedImportRow {
  id: string;
  account_id: string;
  on_conflict: OnConflict;
  column_map: ColumnMap;
  segment_ids: string[];
  topics: { id: string; subscription: Subscription }[];
  total: number;
  errors_kept: number;
}

/** Takes the oldest import waiting to run (queued, or in progress under a lease that ran out). */
export async function claimImport(db: Db, nodeId: string | undefined): Promise<{ job: ImportJob; columnMap: ColumnMap } | undefined> {
  const [row] = await importLeases.claim<ClaimedImportRow>(db, {
    limit: 1,
    leaseMs: LEASE_MS,
    nodeId,
    order: 'created_at',
    set: "status = 'in_progress', started_at = COALESCE(t.started_at, now())",
    returning: 't.id, t.account_id, t.on_conflict, t.column_map, t.segment_ids, t.topics, t.total, jsonb_array_length(t.errors) AS errors_kept',
  });
  return row ? { job: toJob(row, row.fence_token), columnMap: row.column_map } : undefined;
}

function toJob(row: ClaimedImportRow, leaseToken: string): ImportJob {
  return {
    id: row.id,
    accountId: row.account_id,
    leaseToken,
    leaseMs: LEASE_MS,
    onConflict: row.on_conflict,
    segmentIds: row.segment_ids ?? [],
    topics: row.topics.map((t) => ({ topicId: t.id, subscription: t.subscription })),
    done: row.total,
    errorsKept: row.errors_kept,
  };
}

/** Gives the lease back so the import runs again after `delayMs`; returns its failed attempts. */
async function releaseImport(db: Db, job: ImportJob, delayMs: number, failed: boolean): Promise<number> {
  const [row] = await importLeases.settle<{ attempts: number }>(db, [{ key: job.id, token: job.leaseToken }], {
    set: `lease_until = now() + $3 * interval '1 millisecond', attempts = t.attempts + $4`,
    params: [delayMs, failed ? 1 : 0],
    returning: 't.attempts',
  });
  return row?.attempts ?? 0;
}
