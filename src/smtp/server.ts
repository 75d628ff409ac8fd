// The SMTP role: one smtp-server configuration, listening on every POSTLINE_SMTP_PORTS port
// (plain, STARTTLS offered) and POSTLINE_SMTPS_PORTS port (implicit TLS). smtp-server speaks
// the protocol; Postline's part is the session policy behind its hooks, one file each:
//   on-connect.ts    connections per address, AUTH only after TLS
//   on-auth.ts       AUTH PLAIN/LOGIN with an API key, failures slowed down and counted
//   on-mail-from.ts  the account's rate limit for each submitted message
//   on-rcpt-to.ts    no open relay: unauthenticated mail only to our receiving domains
//   on-data.ts       submission through the accept pipeline, or inbound mail
import type { AddressInfo } from 'node:net';
import type { SMTPServerOptions } from 'smtp-server';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { AuthThrottle } from './auth-throttle.js';
import { SmtpListener } from './listener.js';
import { onAuth, type AuthDeps } from './on-auth.js';
import { ConnectionPolicy } from './on-connect.js';
import { MessageMemory, onData, type DataDeps } from './on-data.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { onMailFrom } from './on-mail-from.js';
import { onRcptTo, type RecipientPolicy } from './on-rcpt-to.js';
import { messageParser } from '../message/parse-message.js';
import { MAX_EMAIL_BYTES } from '../api/limits.js';
import type { SmtpReply } from './replies.js';
import { SubmissionBatcher } from './submission-batch.js';
import { acceptSubmitted, type SubmitDeps } from './submit-message.js';
import { loadTlsCredentials } from './tls.js';

type SmtpConfig = Pick<
  Config,
  | 'host'
  | 'smtpPorts'
  | 'smtpsPorts'
  | 'smtpHostname'
  | 'tlsCertFile'
  | 'tlsKeyFile'
  | 'dataDir'
  | 'smtpTimeoutMs'
  | 'smtpDataTimeoutMs'
  | 'smtpMaxConnections'
  | 'smtpMaxConnectionsPerIp'
  | 'smtpMessageMemoryBytes'
>;

interface SmtpDeps extends Pick<SubmitDeps, 'accept' | 'claimIdempotencyKey' | 'requestLogs'> {
  config: SmtpConfig;
  logger: Logger;
  apiKeys: AuthDeps['apiKeys'];
  rateLimiter: Pick<RateLimiter, 'hit'>;
  inbound: RecipientPolicy & DataDeps['inbound'];
}

export interface SmtpPorts {
  starttls: number[];
  implicit: number[];
}

/** After the sessions' time to finish, how long smtp-server waits before it sends the rest 421 and closes them. */
const CLOSE_TIMEOUT_MS = 1_000;
/** How often stop() looks whether every session has ended. */
const DRAIN_POLL_MS = 50;

export class SmtpServer {
  readonly ports: SmtpPorts = { starttls: [], implicit: [] };
  readonly throttle = new AuthThrottle();
  private listeners: SmtpListener[] = [];
  private inFlight = new Set<Promise<unknown>>();
  private connections: ConnectionPolicy;

  constructor(private deps: SmtpDeps) {
    this.connections = new ConnectionPolicy(deps.config.smtpMaxConnectionsPerIp);
  }

  async start(): Promise<void> {
    const { config, logger } = this.deps;
    if (config.smtpPorts.length + config.smtpsPorts.length === 0) return;
    const tls = await loadTlsCredentials(config);
    if (tls.selfSigned) logger.info(`SMTP: no POSTLINE_TLS_CERT/KEY, using a self-signed certificate for ${config.smtpHostname}`);
    const options = this.options(tls);
    for (const [ports, secure] of [
      [config.smtpPorts, false],
      [config.smtpsPorts, true],
    ] as const) {
      for (const port of ports) {
        const listener = new SmtpListener({ ...options, secure });
        listener.on('error', (err: Error & { code?: string }) => logger.debug({ err, code: err.code }, 'SMTP connection error'));
        this.listeners.push(listener);
        const bound = await listen(listener, port, config.host);
        (secure ? this.ports.implicit : this.ports.starttls).push(bound);
        logger.info(`SMTP listening on ${config.host}:${bound} (${secure ? 'implicit TLS' : 'STARTTLS'})`);
      }
    }
  }

  /** Presents this certificate from now on (an ACME renewal): new handshakes get it, open sessions keep theirs. */
  useCertificate(pair: { key: string; cert: string }): void {
    for (const listener of this.listeners) listener.updateSecureContext({ key: pair.key, cert: pair.cert });
    this.deps.logger.info(`SMTP: presenting the certificate for ${this.deps.config.smtpHostname} from the ACME CA`);
  }

  /** From now on new sessions get 421 (the node is stopping); open ones go on. */
  drain(): void {
    this.connections.draining = true;
  }

  /**
   * Drains: new sessions get 421 at once, open ones may go on for up to `graceMs` (a message
   * being sent is finished and answered); then the listeners close, the sessions still open
   * get 421, and stop() waits for the messages being accepted.
   */
  async stop(graceMs: number): Promise<void> {
    this.drain();
    const deadline = Date.now() + graceMs;
    while (this.connections.connections > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
    await Promise.all(this.listeners.map((l) => new Promise<void>((resolve) => l.close(() => resolve()))));
    await Promise.allSettled([...this.inFlight]);
  }

  stats(): { connections: number; authFailures: number } {
    return { connections: this.connections.connections, authFailures: this.throttle.failures };
  }

  private options(tls: { key: string; cert: string }): SMTPServerOptions {
    const { config, logger: smtpLogger } = this.deps;
    const logDeps = { requestLogs: this.deps.requestLogs, hostname: config.smtpHostname };
    return {
      name: config.smtpHostname,
      banner: 'Postline',
      key: tls.key,
      cert: tls.cert,
      size: MAX_EMAIL_BYTES,
      authMethods: ['PLAIN', 'LOGIN'],
      // Unauthenticated clients may deliver to our receiving domains (on-rcpt-to.ts).
      authOptional: true,
      hideENHANCEDSTATUSCODES: false,
      hideSMTPUTF8: true, // delivery cannot carry UTF-8 addresses yet
      // PTR lookups would delay every greeting; nothing here decides on the client's name.
      disableReverseLookup: true,
      socketTimeout: config.smtpTimeoutMs,
      closeTimeout: CLOSE_TIMEOUT_MS,
      maxClients: config.smtpMaxConnections,
      logger: false,
      onConnect: this.connections.onConnect,
      onSecure: this.connections.onSecure,
      onClose: this.connections.onClose,
      onAuth: onAuth({ apiKeys: this.deps.apiKeys, throttle: this.throttle, logger: smtpLogger }),
      onMailFrom: onMailFrom({ ...logDeps, apiKeys: this.deps.apiKeys, rateLimiter: this.deps.rateLimiter, logger: smtpLogger }),
      onRcptTo: onRcptTo({ inbound: this.deps.inbound, logger: smtpLogger }),
      onData: onData({
        ...logDeps,
        accept: this.deps.accept,
        batcher: new SubmissionBatcher(acceptSubmitted(this.deps.accept)),
        parser: messageParser,
        claimIdempotencyKey: this.deps.claimIdempotencyKey,
        logger: smtpLogger,
        inbound: this.deps.inbound,
        memory: new MessageMemory(config.smtpMessageMemoryBytes),
        dataTimeoutMs: config.smtpDataTimeoutMs,
        closeSession: (id, reply) => this.closeSession(id, reply),
        inFlight: this.inFlight,
      }),
    };
  }

  private closeSession(id: string, reply: SmtpReply): void {
    for (const listener of this.listeners) {
      for (const connection of listener.connections) {
        if (connection.id === id) return connection.send(reply.responseCode, reply.message); // a 421 also closes
      }
    }
  }
}

function listen(listener: SmtpListener, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    listener.server.once('error', reject);
    listener.listen(port, host, () => {
      listener.server.off('error', reject);
      resolve((listener.server.address() as AddressInfo).port);
    });
  });
}
