// Postline's own certificates from the ACME CA, as server.ts starts them for a node
// (POSTLINE_ACME_EMAIL): the challenge responder (http-01 or tls-alpn-01), the SMTP listeners'
// certificate (own-certificate.ts) and, with POSTLINE_HTTPS_PORT, the tracking hosts' HTTPS
// listener and certificates (tracking-https.ts).
import type http from 'node:http';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { type AcmeSettings, OwnCertificate, startChallengeResponder } from './own-certificate.js';
import { startTrackingHttps, TrackingCertificates } from './tracking-https.js';

interface NodeParts {
  db: Db;
  config: Config;
  logger: Logger;
  /** The SMTP listeners, when this node runs them: they present the host name's certificate. */
  smtp?: { useCertificate(pair: { key: string; cert: string }): void };
  /** The HTTP API's request handler and the verified tracking hosts, when this node serves the API. */
  api?: { handle(req: http.IncomingMessage, res: http.ServerResponse): void; trackingHosts: { list(): string[]; onChange: (() => void) | undefined } };
}

export async function startOwnCertificates(parts: NodeParts): Promise<{ httpsPort?: number; stop(): Promise<void> }> {
  const { db, config, logger } = parts;
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => logger.warn({ err }, 'stopping certificates failed'));
  };
  const tracking = parts.api && config.httpsPort !== undefined ? parts.api : undefined;
  if (!config.acmeEmail || (!parts.smtp && !tracking)) return { stop };
  const acme: AcmeSettings = {
    email: config.acmeEmail,
    directoryUrl: config.acmeDirectory,
    challenge: config.acmeChallenge,
    httpPort: config.acmeHttpPort,
    tlsPort: config.acmeTlsPort,
    caFile: config.acmeCaFile,
  };
  try {
    const responder = await startChallengeResponder(db, config.host, acme);
    stops.push(() => responder.stop());
    if (parts.smtp) {
      const smtp = parts.smtp;
      const certificate = new OwnCertificate({ db, hostname: config.smtpHostname, acme, logger, onCertificate: (pair) => smtp.useCertificate(pair) });
      stops.push(() => certificate.stop());
      await certificate.start();
    }
    if (!tracking) return { stop };
    const certificates = new TrackingCertificates({ db, acme, logger, hosts: () => tracking.trackingHosts.list() });
    tracking.trackingHosts.onChange = () => certificates.resync();
    stops.push(() => certificates.stop());
    await certificates.start();
    const https = await startTrackingHttps({ host: config.host, port: config.httpsPort!, certificates, handler: tracking.handle });
    stops.push(() => https.stop());
    logger.info(`HTTPS for tracking hosts on ${config.host}:${https.port}`);
    return { httpsPort: https.port, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
