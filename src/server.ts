// Composition root: builds each concept with its dependencies and starts the roles asked
// for. `api` serves HTTP, `smtp` accepts SMTP submission and inbound mail, `worker` delivers
// the queue, dispatches webhooks and does housekeeping. Any number of nodes may run any
// roles on one database.
// Stop order (SIGTERM): /readyz turns 503 and new SMTP sessions get 421 at once; workers
// finish their in-flight attempts and give back what they claimed; then the HTTP API closes
// (it answers until here, so a load balancer sees 503 before the port goes away, and whatever
// it still accepts is queued for the other nodes), the open SMTP sessions get what is left of
// their grace and the listeners close, the request logs are flushed and the database is closed.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ensureBootstrapKey } from './accounts/accounts.js';
import { ApiKeys } from './accounts/api-keys.js';
import { ALL_ROLES, type Config, type Role } from './config.js';
import { ChangeFeed } from './db/change-feed.js';
import { connectDatabase } from './db/connect.js';
import type { Db } from './db/database.js';
import { DnsResolver } from './dns/resolver.js';
import { Domains } from './domains/domains.js';
import { acceptDeps } from './emails/routes.js';
import { buildApp } from './http/app.js';
import { claimIdempotencyKey } from './idempotency/idempotency-keys.js';
import { memoryRateLimiter, redisRateLimiter } from './rate-limit/rate-limiter.js';
import { InboundMail } from './inbound/inbound.js';
import { createLogger, type Logger } from './logger.js';
import { NodeMetrics } from './metrics/node-metrics.js';
import { RequestLogs } from './logs/request-logs.js';
import { SmtpServer, type SmtpPorts } from './smtp/server.js';
import { Sessions } from './users/sessions.js';
import { firstRunSetupToken, setPasswordLink } from './users/users.js';
import type { NodeState, Phase } from './health/routes.js';
import { routeList } from './route-list.js';
import { startWorkerRole } from './worker-role.js';
import { startWorkerThread } from './worker-thread.js';
import { installSecretBox } from './secrets/keyring.js';
import { loadSecretBox } from './secrets/secret-key.js';
import { prepareStoredSecrets } from './secrets/stored-secrets.js';
import { DkimRotation, dkimRotationDeps } from './domains/dkim-rotation.js';
import { startOwnCertificates } from './certificates/own-certificates.js';
import { recordTargets } from './domains/dns-records.js';
import { TrackingHosts } from './tracking/tracking-hosts.js';

export interface Postline {
  config: Config;
  db: Db;
  /** The connection string in use: DATABASE_URL or the embedded server's (another node joins through it). */
  databaseUrl: string;
  logger: Logger;
  /** Base URL of the HTTP API when the api role runs. */
  url: string | undefined;
  /** Ports the smtp role listens on (the bound ones, when configured as 0); empty without it. */
  smtpPorts: SmtpPorts;
  /** The tracking hosts' HTTPS port (POSTLINE_HTTPS_PORT, the bound one when 0); undefined without it. */
  httpsPort: number | undefined;
  stop(): Promise<void>;
}

export async function startPostline(config: Config, options: { roles?: Role[]; logger?: Logger } = {}): Promise<Postline> {
  const roles = new Set(options.roles ?? ALL_ROLES);
  const logger = options.logger ?? createLogger(config.logLevel, config.logFormat);
  // The key that opens stored secrets, before anything reads one: a missing one refuses the start (secrets/secret-key.ts).
  const secretBox = loadSecretBox(config);
  installSecretBox(secretBox);
  const database = await connectDatabase(config, (msg) => logger.info({ role: 'db' }, msg));
  const { db } = database;
  const stops: (() => Promise<void>)[] = [];
  // Run after `stops`: the HTTP API and what its requests use.
  const lastStops: (() => Promise<void>)[] = [];
  // What /readyz reports: the node's phase, and whether each of its roles runs.
  let phase: Phase = 'starting';
  const running = new Map<Role, () => boolean>();
  const node: NodeState = {
    phase: () => phase,
    roles: () => Object.fromEntries([...roles].map((role) => [role, running.get(role)?.() ? 'running' : 'stopped'])),
  };

  try {
    const sealed = await prepareStoredSecrets(db, secretBox);
    if (sealed > 0) logger.info({ role: 'db', sealed }, 'secrets stored in plain text by an earlier version are sealed now');
    if (config.bootstrapApiKey) await ensureBootstrapKey(db, config.bootstrapApiKey);

    // The nodes that authenticate hear of revocations at once (db/change-feed.ts).
    const changes =
      roles.has('api') || roles.has('smtp')
        ? new ChangeFeed(database.url, {
            onTrustChange: (trusted, reason) =>
              trusted
                ? logger.info({ role: 'db' }, 'change feed up: revocations reach this node at once')
                : logger.warn({ role: 'db', reason }, 'change feed down: cached API keys live 2 s until it is back'),
          })
        : undefined;
    await changes?.start();
    const apiKeys = new ApiKeys(db, changes);
    const requestLogs = new RequestLogs(db, (err) => logger.error({ err }, 'request log write failed'));
    const dns = new DnsResolver(config.dnsServers);
    const dkimRotation = new DkimRotation(dkimRotationDeps(db, dns, config, logger));
    const domains = new Domains({ db, dns, hosts: recordTargets(config), sandbox: config.sandbox, outboundIps: config.outboundIps, dkimRotation });
    // Mail from unauthenticated clients (receiving domains, DSNs to return paths): the smtp role hands it over.
    const inbound = new InboundMail({ db, dns, config, logger: logger.child({ role: 'smtp' }) });

    // One per process, shared by the API and SMTP submission: a message counts the same either way.
    const rateLimiter =
      config.redisUrl && (roles.has('api') || roles.has('smtp'))
        ? redisRateLimiter(config.rateLimitPerSecond, config.redisUrl, (err) => logger.warn({ err }, 'redis'))
        : memoryRateLimiter(config.rateLimitPerSecond);
    const accept = acceptDeps(db, config, dns);
    // Recorded and served where /metrics is (the api role), the worker thread's figures merged in.
    const metrics = config.metrics && roles.has('api') ? new NodeMetrics(db) : undefined;
    if (metrics) stops.push(async () => metrics.stop());

    // The worker role's presence in this thread (worker-role.ts) vouches for the idempotency
    // claims of the api and smtp roles too: made before they serve, so they can name it.
    const nodeId = roles.has('worker') ? crypto.randomUUID() : undefined;

    let url: string | undefined;
    /** What the certificates need of the API (the tracking hosts' HTTPS listener hands it requests). */
    let api: Parameters<typeof startOwnCertificates>[0]['api'];
    if (roles.has('api')) {
      // The dashboard's users sign in with a session cookie; until one exists, a set-up link.
      const sessions = new Sessions(db, { idleMs: config.dashboardIdleTimeoutMs, secureCookie: config.publicUrl.startsWith('https:') });
      const setupToken = await firstRunSetupToken(db);
      if (setupToken) {
        logger.warn(
          { role: 'api' },
          `no dashboard user yet: create the first one within an hour at ${setPasswordLink(config.publicUrl, setupToken, { setup: true })}`,
        );
      }
      const routes = routeList({
        db,
        config,
        dns,
        accept,
        sessions,
        apiKeys,
        domains,
        requestLogs,
        node,
        metricsRoutes: metrics?.routes(config.metricsToken),
      });
      // A customer's tracking host serves tracking requests only (http/tracking-hosts.ts).
      const trackingHosts = new TrackingHosts(db, logger.child({ role: 'api' }));
      await trackingHosts.start();
      stops.push(async () => trackingHosts.stop());
      const app = await buildApp({
        db,
        trackingHosts,
        logger: logger.child({ role: 'api' }),
        bodyLimitBytes: config.bodyLimitBytes,
        trustProxy: config.trustProxy,
        // Links in mail (tracking, downloads) are counted per client address, per node.
        publicRateLimiter: memoryRateLimiter(config.publicRateLimitPerSecond),
        apiKeys,
        sessions,
        rateLimiter,
        requestLogs,
        routes,
        nodeId,
      });
      await app.listen({ port: config.port, host: config.host });
      api = { handle: (req, res) => app.routing(req, res), trackingHosts };
      const address = app.server.address() as AddressInfo;
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
      logger.info({ role: 'api' }, `HTTP API listening on ${url}`);
      running.set('api', () => app.server.listening);
      lastStops.push(async () => {
        await app.close();
        await requestLogs.flush();
      });
    }

    let smtpPorts: SmtpPorts = { starttls: [], implicit: [] };
    let smtp: SmtpServer | undefined;
    if (roles.has('smtp')) {
      smtp = new SmtpServer({
        config,
        logger: logger.child({ role: 'smtp' }),
        apiKeys,
        rateLimiter,
        requestLogs,
        accept,
        inbound,
        claimIdempotencyKey: (accountId, endpoint, key, body) => claimIdempotencyKey(db, accountId, endpoint, key, body, nodeId),
      });
      // Pushed before start: a listen failure must close the ports already open.
      const started = smtp;
      lastStops.push(() => started.stop(phase === 'stopping' ? Math.round(config.shutdownTimeoutMs / 3) : 0));
      await smtp.start();
      smtpPorts = smtp.ports;
      running.set('smtp', () => phase === 'ready');
    }
    // Certificates from the ACME CA for the SMTP host name and the tracking hosts (POSTLINE_ACME_EMAIL).
    const certificates = await startOwnCertificates({
      db,
      config,
      logger: logger.child({ role: 'certificates' }),
      smtp: smtp && smtpPorts.starttls.length + smtpPorts.implicit.length > 0 ? smtp : undefined,
      api,
    });
    stops.push(() => certificates.stop());
    lastStops.push(async () => {
      await rateLimiter.close();
      await requestLogs.flush();
      await changes?.stop();
    });

    if (roles.has('worker') && config.workerThread && (roles.has('api') || roles.has('smtp'))) {
      // The worker role's delivering parts on their own event loop and core (worker-thread.ts);
      // its queueing parts here, stopped first as the producers of the thread's queue rows.
      stops.push(startWorkerRole({ db, config, dns, accept, requestLogs, logger, nodeId }, 'queueing'));
      const thread = await startWorkerThread(
        // The keys as this thread holds them: the thread opens secrets alike, whatever its config.
        {
          ...config,
          databaseUrl: database.url,
          metrics: metrics !== undefined,
          secretKey: secretBox.current.key.toString('base64'),
          secretKeyFile: undefined,
          secretKeyPrevious: secretBox.previous.map((k) => k.key.toString('base64')),
        },
        logger.child({ role: 'worker' }),
        'delivering',
      );
      metrics?.addThread(() => thread.metrics());
      stops.push(() => thread.stop());
      running.set('worker', () => thread.running());
    } else if (roles.has('worker')) {
      stops.push(startWorkerRole({ db, config, dns, accept, requestLogs, logger, nodeId }));
      running.set('worker', () => phase === 'ready');
    }
    phase = 'ready';
    if (config.sandbox) {
      logger.warn(
        { sandbox: true },
        'SANDBOX MODE (POSTLINE_SANDBOX=true): nothing leaves this machine. Every email is delivered to the built-in catcher (GET /sandbox/messages); any sending domain works without DNS',
      );
    }
    logger.info({ roles: [...roles] }, `ready: ${[...roles].join(', ')}`);

    let stopped = false;
    return {
      config,
      db,
      databaseUrl: database.url,
      logger,
      url,
      smtpPorts,
      httpsPort: certificates.httpsPort,
      async stop() {
        if (stopped) return;
        stopped = true;
        phase = 'stopping';
        smtp?.drain(); // at once: new sessions get 421 while the open ones finish
        for (const stop of [...stops, ...lastStops]) await stop().catch((err) => logger.error({ err }, 'stop failed'));
        await database.close();
      },
    };
  } catch (err) {
    for (const stop of [...stops, ...lastStops]) await stop().catch(() => {});
    await database.close();
    throw err;
  }
}
