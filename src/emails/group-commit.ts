// Group commit for the accept pipeline: submissions that are ready while a commit is in
// flight share the next transaction (one multi-row INSERT, one COMMIT and its fsync for all
// of them), so concurrent single sends cost the database about what one batch does. There is
// no timer: an idle committer commits at once, and a busy one commits whatever queued up
// meanwhile, so the added latency is at most one commit.
//
// Each submission's own work (beforeCommit: its idempotent response) runs in the shared
// transaction too, so every submission is still acknowledged only once it is committed. If a
// shared transaction fails, each of its submissions is retried alone, so one failing
// submission never fails the others.
//
// A group that persist-and-enqueue writes with one statement, and that has no beforeCommit,
// is sent as that statement alone, which PostgreSQL runs as a transaction of its own: one round
// trip instead of four (BEGIN, the statement, COMMIT). On a busy node each round trip waits
// its turn on the event loop, and those waits were most of an SMTP session's time per message.
import type { Db, Queryable } from '../db/database.js';
import { storedBytes } from '../email-row/stored-message.js';
import { oneStatement, persistAndEnqueue, type OutgoingEmail } from './persist-and-enqueue.js';

interface Part {
  emails: OutgoingEmail[];
  beforeCommit?: (q: Queryable) => Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface GroupCommitOptions {
  /** Most emails in one shared transaction (a larger single submission still commits alone). */
  maxEmails?: number;
  /** Transactions in flight at once: one commits while the next is written. */
  maxInFlight?: number;
}

/**
 * Most message bytes in one shared transaction: persist-and-enqueue passes a group's messages
 * as one bytea parameter, which PostgreSQL caps at 1 GB (a few dozen 40 MB emails).
 */
const MAX_GROUP_BYTES = 256 * 1024 * 1024;
const bytesOf = (part: Part) => part.emails.reduce((n, e) => n + storedBytes(e.message), 0);

export class GroupCommitter {
  private queue: Part[] = [];
  private inFlight = 0;
  private readonly maxEmails: number;
  private readonly maxInFlight: number;

  constructor(
    private db: Db,
    options: GroupCommitOptions = {},
  ) {
    this.maxEmails = options.maxEmails ?? 500;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  /** Writes `emails` and runs `beforeCommit` in a transaction; resolves once it committed. */
  commit(emails: OutgoingEmail[], beforeCommit?: (q: Queryable) => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ emails, beforeCommit, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const group = this.take();
      this.inFlight++;
      void this.run(group).finally(() => {
        this.inFlight--;
        this.next();
      });
    }
  }

  private take(): Part[] {
    const group = [this.queue.shift()!];
    let size = group[0]!.emails.length;
    let bytes = bytesOf(group[0]!);
    while (this.queue.length > 0) {
      const part = this.queue[0]!;
      const partBytes = bytesOf(part);
      if (size + part.emails.length > this.maxEmails || bytes + partBytes > MAX_GROUP_BYTES) break;
      this.queue.shift();
      size += part.emails.length;
      bytes += partBytes;
      group.push(part);
    }
    return group;
  }

  private async run(group: Part[]): Promise<void> {
    try {
      await this.transaction(group);
      for (const part of group) part.resolve();
    } catch (err) {
      if (group.length === 1) return group[0]!.reject(err);
      for (const part of group) {
        await this.transaction([part]).then(part.resolve, part.reject);
      }
    }
  }

  private transaction(group: Part[]): Promise<void> {
    const emails = group.flatMap((part) => part.emails);
    if (oneStatement(emails) && group.every((part) => !part.beforeCommit)) return persistAndEnqueue(this.db, emails);
    return this.db.tx(async (q) => {
      await persistAndEnqueue(q, emails);
      for (const part of group) await part.beforeCommit?.(q);
    });
  }
}
