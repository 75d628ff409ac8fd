// The inbox agent (part of the `worker` role, run only with POSTLINE_AGENT_URL): turns each
// queued job (agent-jobs.ts) into a draft reply. A turn claims due jobs and, for each, reads
// the inbox's agent settings as they are now and the thread so far, asks the model
// (agent-model.ts) with them (agent-prompt.ts), and stores the answer as a draft of the
// thread, answering the message that started it, with `inbox.draft.created` (source `agent`)
// through the one event writer, in the transaction that marks the job drafted. It never
// sends: a person reviews the draft and sends it (POST /inboxes/:inbox/drafts/:draft/send).
//
// A failed request is retried after POSTLINE_AGENT_RETRY_DELAYS, then given up: the job is
// `failed` with its last error, and the failure is logged. No request is made while a
// transaction is open. Shutdown: the loop ends after its turn (requests in flight finish or
// time out); a job whose node dies comes due again when its lease ends or the node is reaped.
import crypto from 'node:crypto';
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { type AgentJob, claimAgentJobs, DRAFT_REPLY, markAttemptFailed, markDrafted, markSkipped } from './agent-jobs.js';
import { draftEvent, insertDraft } from './draft-rows.js';
import type { InboxMessageRow, InboxRow } from './find-inbox.js';
import { askModel, type ModelEndpoint, ModelError } from './agent-model.js';
import { type AgentSettings, draftRequest, type ThreadMessage } from './agent-prompt.js';

const POLL_MS = 250;
const ERROR_BACKOFF_MS = 1_000;
const JOBS_PER_TURN = 4;
/** The lease outlasts the request's own deadline, so a claim never ends while its request may still answer. */
const LEASE_MARGIN_MS = 30_000;
const REPLY_PREFIX = /^\s*re\s*:/i;

interface InboxAgentWorkerOptions {
  db: Db;
  config: Config;
  logger: Logger;
  /** This node's id (cluster/node-presence.ts), written on its claims. */
  nodeId?: string;
}

interface DraftContext {
  agent: AgentSettings & { actions: string[] };
  answered: { replyTo: string[]; fromAddress: string; subject: string | null };
  messages: ThreadMessage[];
}

export class InboxAgentWorker {
  private loop: PollingLoop;
  private endpoint: ModelEndpoint;

  constructor(private options: InboxAgentWorkerOptions) {
    const { config } = options;
    this.endpoint = { url: config.agentUrl!, apiKey: config.agentApiKey, model: config.agentModel!, timeoutMs: config.agentTimeoutMs };
    this.loop = new PollingLoop({
      logger: options.logger,
      failure: 'inbox agent turn failed',
      idleMs: POLL_MS,
      errorBackoffMs: ERROR_BACKOFF_MS,
      turn: async () => (await this.draftDueJobs()) > 0,
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async draftDueJobs(): Promise<number> {
    const { db, logger, nodeId } = this.options;
    const jobs = await claimAgentJobs(db, JOBS_PER_TURN, this.endpoint.timeoutMs + LEASE_MARGIN_MS, nodeId);
    await Promise.all(
      jobs.map((job) =>
        this.draft(job).catch((err) => logger.error({ err, job: job.id, thread: job.threadId }, 'inbox agent job failed; retried after its lease')),
      ),
    );
    return jobs.length;
  }

  private async draft(job: AgentJob): Promise<void> {
    const { db, config, logger } = this.options;
    const context = await loadContext(db, job);
    // The thread was deleted meanwhile (and its job with it), or the agent no longer drafts replies.
    if (!context?.agent.actions.includes(DRAFT_REPLY)) return markSkipped(db, job);
    const maxAttempts = config.agentRetryDelaysMs.length + 1;
    let reply: string;
    try {
      // A job released from a node that died while asking counts that attempt too.
      if (job.attempts > maxAttempts) throw new ModelError('the node asking the model stopped before it answered');
      reply = await askModel(this.endpoint, draftRequest(context.agent, context.messages));
    } catch (err) {
      if (!(err instanceof ModelError)) throw err;
      const retryInMs = job.attempts < maxAttempts ? config.agentRetryDelaysMs[job.attempts - 1] : undefined;
      await markAttemptFailed(db, job, err.message, retryInMs);
      const about = { job: job.id, inbox: job.inboxId, thread: job.threadId, attempt: job.attempts, error: err.message };
      if (retryInMs === undefined) logger.error(about, `inbox agent: no draft for this thread, the model endpoint failed ${job.attempts} times`);
      else logger.warn({ ...about, retryInMs }, 'inbox agent: the model endpoint failed; retrying');
      return;
    }
    const drafted = await storeDraft(db, job, context, reply);
    if (!drafted) logger.warn({ job: job.id, thread: job.threadId }, 'inbox agent: the claim ran out before the answer; another node drafts it');
  }
}

type AgentSettingsRow = Pick<InboxRow, 'email_address' | 'name' | 'agent_instructions' | 'agent_tone' | 'agent_actions'>;
type ThreadMessageRow = Pick<
  InboxMessageRow,
  'id' | 'direction' | 'from_display' | 'from_address' | 'to_addresses' | 'reply_to' | 'subject' | 'text' | 'html' | 'created_at'
>;

async function loadContext(db: Db, job: AgentJob): Promise<DraftContext | undefined> {
  const inbox = await db.one<AgentSettingsRow>(
    'SELECT email_address, name, agent_instructions, agent_tone, agent_actions FROM inboxes WHERE id = $1 AND account_id = $2',
    [job.inboxId, job.accountId],
  );
  if (!inbox) return undefined;
  const rows = await db.query<ThreadMessageRow>(
    `SELECT id, direction, from_display, from_address, to_addresses, reply_to, subject, text, html, created_at
       FROM inbox_messages WHERE thread_id = $1 ORDER BY created_at, id`,
    [job.threadId],
  );
  const answered = rows.find((r) => r.id === job.messageId);
  if (!answered) return undefined;
  return {
    agent: {
      emailAddress: inbox.email_address,
      name: inbox.name,
      instructions: inbox.agent_instructions,
      tone: inbox.agent_tone,
      actions: inbox.agent_actions,
    },
    answered: { replyTo: answered.reply_to, fromAddress: answered.from_address, subject: answered.subject },
    messages: rows.map((r) => ({
      direction: r.direction,
      fromDisplay: r.from_display,
      to: r.to_addresses,
      subject: r.subject,
      text: r.text,
      html: r.html,
      createdAt: r.created_at,
    })),
  };
}

/** The draft, a reply to the message that started the thread, with its event; false when the claim was lost. */
async function storeDraft(db: Db, job: AgentJob, context: DraftContext, reply: string): Promise<boolean> {
  const { answered } = context;
  const to = answered.replyTo.length > 0 ? answered.replyTo : [answered.fromAddress];
  const subject = answered.subject && REPLY_PREFIX.test(answered.subject) ? answered.subject : `Re: ${answered.subject ?? ''}`.trim();
  const draftId = crypto.randomUUID();
  return db.tx(async (q) => {
    if (!(await markDrafted(q, job, draftId))) return false;
    await insertDraft(q, {
      id: draftId,
      inboxId: job.inboxId,
      threadId: job.threadId,
      replyToEmailId: job.messageId,
      to,
      cc: [],
      bcc: [],
      subject,
      html: null,
      text: reply,
    });
    await draftEvent(q, { id: job.inboxId, account_id: job.accountId }, 'inbox.draft.created', { id: draftId, threadId: job.threadId }, 'agent');
    return true;
  });
}
