// The `worker` role: everything that runs from the database rather than from a request. Each
// part claims its own rows (SKIP LOCKED, leases), so any number of nodes or threads may run
// the role on one database. Started in this order, stopped in this order: the producers of
// queue rows (scheduled releases, broadcast fan-out) stop before the delivery worker they
// feed, and each part finishes the work it has in hand.
import { ContactImportWorker, importLeases } from './audience/imports/import-worker.js';
import { stepLeases } from './automations/claim-steps.js';
import { AutomationWorker } from './automations/worker.js';
import { BroadcastFanOut, broadcastLeases, LEASE_MS as BROADCAST_LEASE_MS } from './broadcasts/fan-out.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { deliveryLeases } from './queue/claim.js';
import { DeliveryWorker } from './delivery/worker.js';
import { DnsResolver } from './dns/resolver.js';
import { foldEmailMetricShards } from './events/email-metrics.js';
import type { AcceptDeps } from './emails/accept.js';
import { purgeOldTlsReports, TlsReportSender } from './tls-reports/send-reports.js';
import { purgeStaleStsPolicies } from './tls-policy/mta-sts-cache.js';
import { purgeOldTlsReportCounts } from './tls-policy/tls-report-counts.js';
import { composeDeferred } from './emails/compose-deferred.js';
import { ScheduledEmailReleaser } from './emails/release-scheduled.js';
import { acceptDeps } from './emails/routes.js';
import { idempotencyLeases, purgeExpiredIdempotencyKeys } from './idempotency/idempotency-keys.js';
import { purgeReceivedMail } from './inbound/retention.js';
import { purgeOldReports } from './dmarc-reports/retention.js';
import { agentJobLeases } from './inboxes/agent-jobs.js';
import { InboxAgentWorker } from './inboxes/agent-worker.js';
import type { Logger } from './logger.js';
import { RequestLogs } from './logs/request-logs.js';
import { NodePresence } from './cluster/node-presence.js';
import { failExpired } from './queue/repair.js';
import { resumeOrphans } from './queue/pauses.js';
import { signers } from './signed-urls/url-signing.js';
import { webhookMessageLeases } from './webhooks/claim.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookDestinations } from './webhooks/webhook-fields.js';
import { DkimRotation, dkimRotationDeps } from './domains/dkim-rotation.js';
import { BlocklistWatch } from './blocklists/watch.js';

const HOUSEKEEPING_MS = 10 * 60_000;
/** Every table of work claimed under a lease with a node's id: the claims a dead node's reaping releases. */
export const LEASED_TABLES = [deliveryLeases, webhookMessageLeases, importLeases, broadcastLeases, stepLeases, agentJobLeases, idempotencyLeases];
/** Queue upkeep (expired mail, orphaned pauses) runs every 1 % of the max queue age, within these bounds. */
const QUEUE_UPKEEP_MIN_MS = 1_000;
const QUEUE_UPKEEP_MAX_MS = 60_000;

interface WorkerRoleDeps {
  db: Db;
  config: Config;
  dns: DnsResolver;
  accept: AcceptDeps;
  requestLogs: RequestLogs;
  logger: Logger;
  /** The id of this thread's node presence, when made beforehand: the api and smtp roles beside it tag their idempotency claims with it. */
  nodeId?: string;
}

interface Part {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Which parts of the role one event loop runs. 'all' on a worker node. Beside api/smtp with a
 * worker thread (server.ts), the main thread runs the 'queueing' parts (scheduled releases and
 * broadcast fan-out: light, round-trip-bound loops that turn due work into queue rows) and the
 * thread the 'delivering' rest (delivery with its composing and signing, webhooks, imports,
 * automations, housekeeping). A broadcast is then queued at the database's pace instead of
 * waiting in line behind the CPU of delivering the mail it has already queued.
 */
export type WorkerShare = 'all' | 'queueing' | 'delivering';

/**
 * The role on its own (a worker thread, or a `--roles worker` node): its own DNS cache, accept
 * pipeline dependencies and request-log purger on `db`.
 */
export function startStandaloneWorkerRole(db: Db, config: Config, logger: Logger, share: WorkerShare = 'all'): () => Promise<void> {
  const dns = new DnsResolver(config.dnsServers);
  const requestLogs = new RequestLogs(db, (err) => logger.error({ err }, 'request log write failed'));
  return startWorkerRole({ db, config, dns, accept: acceptDeps(db, config, dns), requestLogs, logger }, share);
}

/** Starts every part of the role; returns the function that stops them in order. */
export function startWorkerRole(
  { db, config, dns, accept, requestLogs, logger, nodeId: presenceId }: WorkerRoleDeps,
  share: WorkerShare = 'all',
): () => Promise<void> {
  const unsubscribeSigner = signers(db);
  // Every claiming event loop is a node with a presence: started before the parts that claim
  // with its id, stopped after them (they give their claims back first). Any live node releases
  // what a dead one held in every leased table (concurrency/leased-work.ts), whatever the kind.
  const presence = new NodePresence(db, logger.child({ role: 'worker' }), LEASED_TABLES, presenceId);
  const nodeId = presence.id;
  const queueing: Part[] = [
    // Scheduled emails enter the queue when due.
    new ScheduledEmailReleaser(db, logger.child({ role: 'worker' })),
    // Due broadcasts become one email per contact, chunk by chunk, through the accept pipeline.
    new BroadcastFanOut({
      db,
      accept,
      links: async () => ({ publicUrl: config.publicUrl, signer: await unsubscribeSigner('unsubscribe') }),
      chunkSize: config.broadcastChunkSize,
      leaseMs: BROADCAST_LEASE_MS,
      logger: logger.child({ role: 'broadcasts' }),
      nodeId,
    }),
  ];
  const delivering: Part[] = [
    new DeliveryWorker({
      db,
      config,
      resolver: dns,
      logger: logger.child({ role: 'worker' }),
      composeDeferred: (ids) => composeDeferred(db, accept.tracking, ids),
      nodeId,
    }),
    new WebhookDispatcher({
      db,
      config,
      destinations: webhookDestinations(config, dns),
      logger: logger.child({ role: 'webhooks' }),
      nodeId,
    }),
    // Queued CSV imports of contacts, one at a time, batch by batch.
    new ContactImportWorker(db, logger.child({ role: 'contact-imports' }), nodeId),
    // Sent events start automation runs; runs' steps (delays, waits, emails) are carried out.
    new AutomationWorker({ db, accept, logger: logger.child({ role: 'automations' }), nodeId }),
    // Pending DKIM rotations switched once their record is published; replaced keys retired in time.
    new DkimRotation(dkimRotationDeps(db, dns, config, logger.child({ role: 'dkim' }))),
    // Yesterday's TLS reports (RFC 8460) to the recipient domains that ask for them, once for the cluster.
    new TlsReportSender({
      db,
      resolver: dns,
      accept,
      from: config.tlsReportsFrom,
      submitter: config.smtpHostname,
      logger: logger.child({ role: 'tls-reports' }),
    }),
    // The outbound addresses and sending domains asked of DNS blocklists, one round per interval for the cluster.
    new BlocklistWatch({ db, config, logger: logger.child({ role: 'blocklists' }) }),
    // Drafts of replies to new inbox threads, asked of the operator's model endpoint, if any.
    ...(config.agentUrl ? [new InboxAgentWorker({ db, config, logger: logger.child({ role: 'inbox-agent' }), nodeId })] : []),
  ];
  const parts = [...(share === 'delivering' ? [] : queueing), ...(share === 'queueing' ? [] : delivering)];
  presence.start();
  for (const part of parts) part.start();
  const stopParts = stopAll([...parts, presence], logger);
  // Housekeeping runs once per node: with the delivering share where the role is split.
  if (share === 'queueing') return stopParts;

  const keepHouse = () => {
    void requestLogs.purgeOlderThan(config.logRetentionDays).catch((err) => logger.warn({ err }, 'log purge failed'));
    void purgeExpiredIdempotencyKeys(db).catch((err) => logger.warn({ err }, 'idempotency purge failed'));
    void foldEmailMetricShards(db).catch((err) => logger.warn({ err }, 'email metrics fold failed'));
    void Promise.all([purgeStaleStsPolicies(db), purgeOldTlsReportCounts(db), purgeOldTlsReports(db)]).catch((err) =>
      logger.warn({ err }, 'MTA-STS and TLS report purge failed'),
    );
    void purgeOldReports(db, config.reportRetentionMs).catch((err) => logger.warn({ err }, 'DMARC and TLS report purge failed'));
    if (config.receivedRetentionMs !== undefined) {
      void purgeReceivedMail(db, config.receivedRetentionMs).catch((err) => logger.warn({ err }, 'received mail purge failed'));
    }
  };
  // At start too: a node restarted more often than every HOUSEKEEPING_MS still purges.
  keepHouse();
  const housekeeping = setInterval(keepHouse, HOUSEKEEPING_MS);
  housekeeping.unref();
  // The max queue age holds in every state, not only at a retry: mail paused, never claimed or
  // never released fails when it expires. Paused rows whose pause is gone become due.
  const queueUpkeep = setInterval(
    () => {
      void failExpired(db, config.maxQueueAgeMs, (emails) => logger.info({ role: 'worker', emails }, 'mail older than POSTLINE_MAX_QUEUE_AGE failed')).catch(
        (err) => logger.warn({ err }, 'failing expired mail failed'),
      );
      void resumeOrphans(db).catch((err) => logger.warn({ err }, 'resuming orphaned pauses failed'));
    },
    Math.min(QUEUE_UPKEEP_MAX_MS, Math.max(QUEUE_UPKEEP_MIN_MS, config.maxQueueAgeMs / 100)),
  );
  queueUpkeep.unref();

  return async () => {
    clearInterval(housekeeping);
    clearInterval(queueUpkeep);
    await stopParts();
  };
}

/** Stops the parts one after the other, in the order they were started. */
function stopAll(parts: Part[], logger: Logger): () => Promise<void> {
  return async () => {
    for (const part of parts) await part.stop().catch((err) => logger.error({ err }, 'stop failed'));
  };
}
