// Submissions of one API key that are ready at about the same time enter the accept pipeline
// together, as the API's batch endpoint does: one sender-domain query, one suppression query
// and one commit part for all of them, instead of one each. Concurrent SMTP sessions of an
// application are the common case (a pool of connections, 20 in bench/smtp-submission.ts),
// and those per-message queries were most of a message's wait before its commit.
//
// No timer: a key's messages are gathered until the end of the event-loop turn (setImmediate)
// and go at once when none of its batches is being accepted; while one is, the next gathers
// meanwhile and goes when it finishes, as the group committer (src/emails/group-commit.ts)
// does with transactions. An idle server adds no delay. One batch at a time measured best
// (bench/smtp-submission.ts, 20 sessions, 100 messages each: 1,024–1,033 messages/s against
// 967 with two and 899 with three; ~850 without batching), and costs the least CPU per message.
//
// Each message keeps its own outcome: the batch is accepted permissively and each message
// gets its id or its own refusal. If the whole batch fails (the database is unavailable, or
// an error the pipeline does not attribute to one message), each message is accepted again
// alone, so one message's failure never becomes another's reply. Nothing of a failed batch
// was written: the pipeline writes in one transaction.
import type { ApiError } from '../api/errors.js';
import type { Principal } from '../api/route.js';
import type { AcceptResult } from '../emails/accept.js';
import type { EmailRequest } from '../emails/email-request.js';

/** Accepts validated messages (strict: the first refusal throws; permissive: refusals in `errors`). */
export type AcceptMessages = (principal: Principal, messages: EmailRequest[], mode: 'strict' | 'permissive') => Promise<AcceptResult>;

interface Waiting {
  message: EmailRequest;
  resolve(id: string): void;
  reject(err: unknown): void;
}

interface KeyQueue {
  principal: Principal;
  waiting: Waiting[];
  inFlight: number;
  scheduled: boolean;
}

/** Batches of one key being accepted at once. */
const MAX_IN_FLIGHT = 1;
/** Most messages in one batch (each may have up to 50 recipients). */
const MAX_BATCH = 100;

export class SubmissionBatcher {
  private queues = new Map<string, KeyQueue>();

  constructor(private accept: AcceptMessages) {}

  /** Accepts `message` (with others of the same key when they are ready too); resolves with its email id. */
  submit(principal: Principal, message: EmailRequest): Promise<string> {
    // The principal is looked up again for each message (on-mail-from.ts), so a key whose
    // permission or domain changed gets a queue of its own.
    const key = `${principal.apiKeyId ?? ''}|${principal.accountId}|${principal.permission ?? ''}|${principal.domainId ?? ''}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { principal, waiting: [], inFlight: 0, scheduled: false };
      this.queues.set(key, queue);
    }
    const q = queue;
    return new Promise((resolve, reject) => {
      q.waiting.push({ message, resolve, reject });
      this.schedule(key, q);
    });
  }

  private schedule(key: string, queue: KeyQueue): void {
    if (queue.scheduled || queue.inFlight >= MAX_IN_FLIGHT || queue.waiting.length === 0) return;
    queue.scheduled = true;
    setImmediate(() => {
      queue.scheduled = false;
      while (queue.inFlight < MAX_IN_FLIGHT && queue.waiting.length > 0) {
        const batch = queue.waiting.splice(0, MAX_BATCH);
        queue.inFlight++;
        void this.run(queue.principal, batch).finally(() => {
          queue.inFlight--;
          if (queue.waiting.length > 0) this.schedule(key, queue);
          else if (queue.inFlight === 0) this.queues.delete(key);
        });
      }
    });
  }

  private async run(principal: Principal, batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return this.alone(principal, batch[0]!);
    let result: AcceptResult;
    try {
      result = await this.accept(
        principal,
        batch.map((w) => w.message),
        'permissive',
      );
    } catch {
      await Promise.all(batch.map((w) => this.alone(principal, w)));
      return;
    }
    const refused = new Map<number, ApiError>(result.errors.map((e) => [e.index, e.error]));
    let next = 0;
    batch.forEach((w, index) => {
      const error = refused.get(index);
      if (error) w.reject(error);
      else w.resolve(result.ids[next++]!);
    });
  }

  private async alone(principal: Principal, waiting: Waiting): Promise<void> {
    try {
      const { ids } = await this.accept(principal, [waiting.message], 'strict');
      waiting.resolve(ids[0]!);
    } catch (err) {
      waiting.reject(err);
    }
  }
}
