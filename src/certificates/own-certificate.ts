// The certificate Postline's SMTP listeners present for POSTLINE_SMTP_HOSTNAME, from an ACME CA
// (POSTLINE_ACME_EMAIL; acme.ts speaks the protocol): obtained at first start, renewed when a
// third of its life is left (30 days of Let's Encrypt's 90) and reloaded into the listeners
// without dropping a session. One certificate for the cluster (tls_certificates): the node
// whose UPDATE claims the due row orders it; every node loads what is stored. The CA checks
// an http-01 challenge on port 80 (POSTLINE_ACME_HTTP_PORT) or a tls-alpn-01 one on 443
// (POSTLINE_ACME_TLS_PORT) of whichever node it reaches, so every node answers them from the
// database (acme_challenges). A failed order keeps the certificate in
// use, is logged and counted (postline_acme_failures_total), and is tried again after a
// growing back-off; until the first one, the listeners keep the self-signed certificate.
import fs from 'node:fs';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { acmeFailed, certificateExpiresAt } from '../metrics/record.js';
import { openSecret, sealSecret } from '../secrets/keyring.js';
import { type ChallengeResponder, type ChallengeType, obtainCertificate, type PublishedChallenge } from './acme.js';
import { startHttp01Responder, startTlsAlpn01Responder } from './challenge-responders.js';

export interface AcmeSettings {
  email: string;
  directoryUrl: string;
  /** What the CA checks: a request to port 80 or a TLS handshake on 443 (POSTLINE_ACME_CHALLENGE). */
  challenge: ChallengeType;
  /** Where the http-01 responder listens (80 unless something in front forwards it). */
  httpPort: number;
  /** Where the tls-alpn-01 responder listens (443 unless something in front forwards it). */
  tlsPort: number;
  /** PEM file of the CA the directory's HTTPS presents (a private ACME server); unset: the trust store. */
  caFile: string | undefined;
}

interface OwnCertificateDeps {
  db: Db;
  hostname: string;
  acme: AcmeSettings;
  logger: Logger;
  /** A certificate to present from now on (the listeners reload it). */
  onCertificate(pair: { key: string; cert: string }): void;
}

/** How often a node looks for a newer certificate another node stored, at most. */
const LOOK_MS = 60_000;
/** A claimed order may run this long before another node may try (acme.ts gives up after 5 minutes). */
const ORDER_LEASE_MS = 10 * 60_000;
/** After the nth failure in a row, wait BACKOFF_MS[n - 1] (the last repeats). */
const BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000];
const MAX_RENEW_BEFORE_MS = 30 * 86_400_000;

/** A tls_certificates row: cert, its key, not_after and obtained_at are stored together (null until the first order succeeds). */
type TlsCertificateRow = { hostname: string; next_attempt_at: Date; failures: number; last_error: string | null } & (
  | { cert: null; private_key: null; not_after: null; obtained_at: null }
  | { cert: string; private_key: string; not_after: Date; obtained_at: Date }
);

interface ClaimedOrderRow {
  failures: number;
}

interface AcmeAccountRow {
  account_key: string;
}

export class OwnCertificate {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private loadedAt: number | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(private deps: OwnCertificateDeps) {}

  async start(): Promise<void> {
    await this.deps.db.query('INSERT INTO tls_certificates (hostname) VALUES ($1) ON CONFLICT DO NOTHING', [this.deps.hostname]);
    await this.loadStored(); // what is stored already, at once
    this.running = this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running.catch(() => {});
  }

  /** Loads a newer stored certificate, orders one when due, and schedules the next look. */
  private async tick(): Promise<void> {
    let next = LOOK_MS;
    try {
      const row = await this.loadStored();
      if (row && this.due(row)) await this.order();
      const after = await this.loadStored();
      if (after) next = Math.min(next, Math.max(1_000, after.next_attempt_at.getTime() - Date.now(), this.renewAt(after) - Date.now()));
    } catch (err) {
      this.deps.logger.warn({ err }, 'certificate check failed; trying again later');
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => (this.running = this.tick()), Math.max(1_000, next));
    this.timer.unref();
  }

  private async loadStored(): Promise<TlsCertificateRow | undefined> {
    const row = await this.deps.db.one<TlsCertificateRow>('SELECT * FROM tls_certificates WHERE hostname = $1', [this.deps.hostname]);
    if (row?.cert && row.obtained_at.getTime() !== this.loadedAt) {
      this.loadedAt = row.obtained_at.getTime();
      this.deps.onCertificate({ key: openSecret(row.private_key, 'tls-private-key'), cert: row.cert });
      certificateExpiresAt(row.not_after);
    }
    return row;
  }

  private due(row: TlsCertificateRow): boolean {
    if (row.next_attempt_at.getTime() > Date.now()) return false;
    return !row.cert || Date.now() >= this.renewAt(row);
  }

  /** A third of its life before it ends, 30 days at most (Let's Encrypt's advice for its 90-day certificates). */
  private renewAt(row: TlsCertificateRow): number {
    if (!row.cert) return Date.now();
    const end = row.not_after.getTime();
    return end - Math.min(MAX_RENEW_BEFORE_MS, (end - row.obtained_at.getTime()) / 3);
  }

  private async order(): Promise<void> {
    const { db, hostname, acme, logger } = this.deps;
    const claimed = await db.one<ClaimedOrderRow>(
      `UPDATE tls_certificates SET next_attempt_at = now() + $2 * interval '1 millisecond'
        WHERE hostname = $1 AND next_attempt_at <= now() RETURNING failures`,
      [hostname, ORDER_LEASE_MS],
    );
    if (!claimed) return; // another node is ordering
    const account = await db.one<AcmeAccountRow>('SELECT account_key FROM acme_accounts WHERE directory_url = $1', [acme.directoryUrl]);
    try {
      const obtained = await obtainCertificate({
        directoryUrl: acme.directoryUrl,
        email: acme.email,
        accountKey: account ? openSecret(account.account_key, 'acme-account-key') : undefined,
        hostnames: [hostname],
        challenge: acme.challenge,
        responder: this.databaseResponder(),
        ca: acme.caFile ? fs.readFileSync(acme.caFile, 'utf8') : undefined,
      });
      await db.tx(async (q) => {
        await q.query(
          `INSERT INTO acme_accounts (directory_url, email, account_key) VALUES ($1, $2, $3)
           ON CONFLICT (directory_url) DO UPDATE SET email = EXCLUDED.email, account_key = EXCLUDED.account_key`,
          [acme.directoryUrl, acme.email, sealSecret(obtained.accountKey, 'acme-account-key')],
        );
        await q.query(
          `UPDATE tls_certificates SET cert = $2, private_key = $3, not_after = $4, obtained_at = now(), failures = 0, last_error = NULL,
                  next_attempt_at = now() WHERE hostname = $1`,
          [hostname, obtained.cert, sealSecret(obtained.key, 'tls-private-key'), obtained.notAfter],
        );
      });
      logger.info({ hostname, notAfter: obtained.notAfter }, 'ACME: certificate obtained');
    } catch (err) {
      const failures = claimed.failures + 1;
      const wait = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length) - 1]!;
      await db.query(
        `UPDATE tls_certificates SET failures = $2, last_error = $3, next_attempt_at = now() + $4 * interval '1 millisecond' WHERE hostname = $1`,
        [hostname, failures, (err as Error).message, wait],
      );
      acmeFailed();
      logger.warn(
        { err, hostname, failures, retryInS: wait / 1000 },
        `ACME: no certificate for ${hostname} (${(err as Error).message}); the current one stays, trying again in ${wait / 1000} s`,
      );
    }
  }

  /** Challenges go to the database, where every node's responder finds them. */
  private databaseResponder(): ChallengeResponder {
    const { db } = this.deps;
    return {
      async publish(challenge: PublishedChallenge) {
        await db.query(
          `INSERT INTO acme_challenges (token, type, hostname, key_authorization, expires_at) VALUES ($1, $2, $3, $4, now() + interval '1 hour')
           ON CONFLICT (token) DO UPDATE SET key_authorization = EXCLUDED.key_authorization, expires_at = EXCLUDED.expires_at`,
          [challenge.token, challenge.type, challenge.hostname.toLowerCase(), challenge.keyAuthorization],
        );
      },
      async unpublish(challenge: PublishedChallenge) {
        await db.query('DELETE FROM acme_challenges WHERE token = $1 OR expires_at < now()', [challenge.token]);
      },
    };
  }
}

interface KeyAuthorizationRow {
  key_authorization: string;
}

/** The key authorization of an http-01 challenge in flight (acme_challenges), by its token. */
export async function http01Answer(db: Db, token: string): Promise<string | undefined> {
  const row = await db.one<KeyAuthorizationRow>(`SELECT key_authorization FROM acme_challenges WHERE token = $1 AND type = 'http-01' AND expires_at > now()`, [
    token,
  ]);
  return row?.key_authorization;
}

/** The key authorization of a tls-alpn-01 challenge in flight, by the host name it proves. */
async function tlsAlpn01Answer(db: Db, hostname: string): Promise<string | undefined> {
  const row = await db.one<KeyAuthorizationRow>(
    `SELECT key_authorization FROM acme_challenges WHERE hostname = $1 AND type = 'tls-alpn-01' AND expires_at > now()
      ORDER BY expires_at DESC LIMIT 1`,
    [hostname],
  );
  return row?.key_authorization;
}

/**
 * Answers the CA's challenges from the database: http-01 on POSTLINE_ACME_HTTP_PORT, or
 * tls-alpn-01 on POSTLINE_ACME_TLS_PORT, whichever POSTLINE_ACME_CHALLENGE chose.
 */
export function startChallengeResponder(db: Db, host: string, acme: AcmeSettings): Promise<{ port: number; stop(): Promise<void> }> {
  if (acme.challenge === 'tls-alpn-01') {
    return startTlsAlpn01Responder({ host, port: acme.tlsPort, keyAuthorization: (hostname) => tlsAlpn01Answer(db, hostname) });
  }
  return startHttp01Responder({ host, port: acme.httpPort, keyAuthorization: (token) => http01Answer(db, token) });
}
