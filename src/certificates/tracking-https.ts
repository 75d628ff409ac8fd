// HTTPS for the domains' own tracking hosts (`<tracking_subdomain>.<domain>`, tracking/
// tracking-hosts.ts): with POSTLINE_HTTPS_PORT, a listener that presents, by the name a client
// asks for (SNI), the certificate the ACME CA issued for that host, and hands requests to the
// HTTP API (which serves only tracking under such a host: http/tracking-hosts.ts). A certificate
// per host, ordered once its CNAME verifies and renewed like the SMTP one (own-certificate.ts),
// shared by the cluster; a host removed or no longer verified is forgotten here.
// GET /.well-known/acme-challenge/<token> is also answered by the API itself, for a CA that
// reaches the tracking host's port 80 through a proxy in front of the API.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import { notFound } from '../api/errors.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { type AcmeSettings, http01Answer, OwnCertificate } from './own-certificate.js';

const SYNC_MS = 30_000;

export class TrackingCertificates {
  private byHost = new Map<string, { certificate: OwnCertificate; context?: tls.SecureContext }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private deps: { db: Db; acme: AcmeSettings; logger: Logger; hosts: () => string[] }) {}

  /** The certificate's context for a host, once one is obtained. */
  contextFor(servername: string): tls.SecureContext | undefined {
    return this.byHost.get(servername.toLowerCase())?.context;
  }

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync(), SYNC_MS);
    this.timer.unref();
  }

  /** Follows the hosts at once (the list changed). */
  resync(): void {
    void this.sync();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.byHost.values()].map((h) => h.certificate.stop()));
  }

  /** A certificate for each verified tracking host; those no longer verified dropped. */
  private async sync(): Promise<void> {
    const wanted = new Set(this.deps.hosts());
    for (const [host, held] of this.byHost) {
      if (wanted.has(host)) continue;
      this.byHost.delete(host);
      await held.certificate.stop();
    }
    for (const host of wanted) {
      if (this.byHost.has(host)) continue;
      const held: { certificate: OwnCertificate; context?: tls.SecureContext } = {
        certificate: new OwnCertificate({
          db: this.deps.db,
          hostname: host,
          acme: this.deps.acme,
          logger: this.deps.logger,
          onCertificate: (pair) => (held.context = tls.createSecureContext(pair)),
        }),
      };
      this.byHost.set(host, held);
      await held.certificate.start().catch((err) => this.deps.logger.warn({ err, host }, 'tracking host certificate failed to start'));
    }
  }
}

/** The HTTPS listener: SNI picks the tracking host's certificate; a host without one yet fails the handshake. */
export async function startTrackingHttps(options: {
  host: string;
  port: number;
  certificates: TrackingCertificates;
  handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
}): Promise<{ port: number; stop(): Promise<void> }> {
  const server = https.createServer(
    {
      SNICallback: (servername, callback) => {
        const context = options.certificates.contextFor(servername);
        callback(context ? null : new Error(`no certificate for ${servername}`), context);
      },
    },
    options.handler,
  );
  server.on('tlsClientError', () => {}); // a client asking for a name without a certificate
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GET /.well-known/acme-challenge/:token on the API: http-01 answers from the database. */
export function challengeRoutes(db: Db): Route[] {
  return [
    {
      method: 'GET',
      url: '/.well-known/acme-challenge/:token',
      access: 'public',
      doc: {
        summary: "An ACME CA's http-01 challenge, answered from the database (certificates for tracking hosts and the SMTP host name)",
        addition: true,
        params: { token: string({ pattern: '^[A-Za-z0-9_-]{1,256}$' }) },
        response: { status: 200, contentType: 'text/plain', description: 'The key authorization.' },
      },
      async handler({ params }) {
        // The token has its documented form: the route's schema refused any other.
        const answer = await http01Answer(db, params.token!);
        if (!answer) throw notFound('Challenge');
        return { status: 200, body: answer, headers: { 'content-type': 'text/plain' } };
      },
    },
  ];
}
