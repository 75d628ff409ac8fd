// Environment → one typed, validated config object. Every variable of the operator contract
// is declared once here (SETTINGS: name, default, parser, help), read here and nowhere else,
// and the README's table is generated from the declarations.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PrivateAccess } from './egress/destination-policy.js';
import {
  ConfigError,
  unset,
  integer,
  bool,
  text,
  optionalText,
  emailAddress,
  portList,
  url,
  timeout,
  duration,
  optionalPositiveDuration,
  durationList,
  trustProxy,
  privateAccess,
  list,
  ipList,
  oneOf,
  zoneList,
  type Read,
} from './config-readers.js';
import { type Provider, providerTable } from './providers/providers.js';

export type Role = 'api' | 'smtp' | 'worker';
export const ALL_ROLES: Role[] = ['api', 'smtp', 'worker'];

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** The key that seals stored secrets (secrets/secret-key.ts): POSTLINE_SECRET_KEY's text, or undefined. */
  secretKey: string | undefined;
  secretKeyFile: string | undefined;
  /** Keys also accepted to open secrets, during a rotation (`postline secrets rotate`). */
  secretKeyPrevious: string[];
  publicUrl: string;
  /** SMTP ports with STARTTLS offered / with implicit TLS; port 0 listens on a random free port. */
  smtpPorts: number[];
  smtpsPorts: number[];
  smtpHostname: string;
  /** SMTP: a session idle this long is closed (ms); the DATA of one message must arrive within smtpDataTimeoutMs. */
  smtpTimeoutMs: number;
  smtpDataTimeoutMs: number;
  /** SMTP: open connections per listening port, and per client address over all ports. */
  smtpMaxConnections: number;
  smtpMaxConnectionsPerIp: number;
  /** SMTP: bytes of messages all sessions together may hold in memory while receiving and accepting them. */
  smtpMessageMemoryBytes: number;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** ACME for the SMTP listeners' certificate (certificates/own-certificate.ts): on when an email is given. */
  acmeEmail: string | undefined;
  acmeDirectory: string;
  /** How the CA checks this is the host: http-01 on acmeHttpPort or tls-alpn-01 on acmeTlsPort. */
  acmeChallenge: 'http-01' | 'tls-alpn-01';
  acmeHttpPort: number;
  acmeTlsPort: number;
  acmeCaFile: string | undefined;
  /** An HTTPS listener for the domains' tracking hosts, with ACME certificates; undefined: none. */
  httpsPort: number | undefined;
  dnsServers: string[];
  outboundPort: number;
  /** Local addresses outgoing SMTP connections are bound to, in turn (delivery/outbound-ips.ts); empty: the system chooses. */
  outboundIps: string[];
  /** DNS blocklists (zones) asked about the outbound addresses, and about the verified sending domains (blocklists/), every dnsblIntervalMs. */
  dnsbls: string[];
  domainBlocklists: string[];
  dnsblIntervalMs: number;
  relayUrl: string | undefined;
  /** Nothing leaves the machine: every message is delivered to the built-in catcher (sandbox/), any sending domain works without DNS. */
  sandbox: boolean;
  /** POSTLINE_SANDBOX: the SMTP relay captured mail is released through (sandbox/release.ts); undefined: release is refused. */
  sandboxReleaseUrl: string | undefined;
  /** POSTLINE_SANDBOX: which private, loopback or reserved addresses the link check of captured mail may reach (egress/). */
  sandboxLinkCheckAllowPrivate: PrivateAccess;
  /** With POSTLINE_PROVIDERS_FILE: the mailbox-provider table, the operator's entries first (providers/providers.ts); unset: the built-in one. */
  providers: Provider[] | undefined;
  bootstrapApiKey: string | undefined;
  /** A dashboard session unused this long ends (ms); it ends 7 days after sign-in whatever the activity. */
  dashboardIdleTimeoutMs: number;
  rateLimitPerSecond: number;
  redisUrl: string | undefined;
  logLevel: string;
  /** pretty: one coloured line per entry (pino-pretty), for a terminal; json: one JSON object per line. */
  logFormat: 'pretty' | 'json';
  /** SIGTERM/SIGINT: the process exits within this (ms); SMTP sessions get a third of it to finish. */
  shutdownTimeoutMs: number;
  /** How long a message may keep being retried before it fails (ms). */
  downloadUrlTtlMs: number;
  maxQueueAgeMs: number;
  /** How long a DKIM key replaced by a rotation stays `retiring` (its record should stay published), at least maxQueueAgeMs (ms). */
  dkimRetireAfterMs: number;
  /** Request logs older than this are deleted (days). */
  logRetentionDays: number;
  /** Largest accepted request body, bytes (40 MB of email after encoding, plus JSON overhead). */
  bodyLimitBytes: number;
  /** Delivery worker: parallel SMTP sessions in total and per destination host. */
  deliveryConcurrency: number;
  deliveryConcurrencyPerHost: number;
  /** Delivery worker: traffic shaping per provider (delivery/shaping.ts); false leaves only the connection limits. */
  shaping: boolean;
  /** Delivery worker: the window throttling receivers are taken to count over; the shaping's time constants are shares of it (delivery/shaping.ts). */
  shapingQuietMs: number;
  /** Delivery worker: waits before each retry of a temporary failure; the last one repeats. */
  retryDelaysMs: number[];
  /** Delivery: how often a recipient domain's `_mta-sts` TXT record is looked up again, once for the whole cluster (ms). */
  mtaStsCheckMs: number;
  /** The address daily TLS reports (RFC 8460) are sent from; its domain must be a verified sending domain. Unset: none are sent. */
  tlsReportsFrom: string | undefined;
  /** Webhooks: waits before each retry of a failed attempt (the first attempt is immediate). */
  webhookRetryDelaysMs: number[];
  /** Webhooks: how long one attempt may take before it counts as failed (ms). */
  webhookTimeoutMs: number;
  /** Webhooks: an endpoint whose attempts have all failed for this long is disabled (ms). */
  webhookDisableAfterMs: number;
  /** Webhooks: parallel attempts in total and per endpoint. */
  webhookConcurrency: number;
  webhookConcurrencyPerEndpoint: number;
  /** Webhooks: messages and attempts older than this are deleted (days). */
  webhookLogRetentionDays: number;
  /** Webhooks: which private, loopback or reserved addresses endpoints may reach (egress/). */
  webhookAllowPrivate: PrivateAccess;
  /** Received mail older than this is deleted (ms); undefined: kept. */
  receivedRetentionMs: number | undefined;
  /** Received DMARC and TLS reports older than this are deleted (ms). */
  reportRetentionMs: number;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy):
   * false, true (every one), a number of hops, or addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string;
  /** Requests per second per client address to the public links in mail (tracking, downloads, unsubscribe). */
  publicRateLimitPerSecond: number;
  /** Attachments given by `path`: which private, loopback or reserved addresses URLs may reach (egress/). */
  attachmentFetchAllowPrivate: PrivateAccess;
  /** Attachments given by `path`: the deadline of one fetch, redirects and body included (ms). */
  attachmentFetchTimeoutMs: number;
  /** Broadcasts: contacts per fan-out chunk, i.e. emails accepted (and committed) per transaction. */
  broadcastChunkSize: number;
  /**
   * Run the worker role in a thread of its own when this process also serves the API or SMTP,
   * so accepting and delivering each have an event loop and a core. Default: when the machine
   * has more than one core.
   */
  workerThread: boolean;
  /** Record metrics and serve them at /metrics on the API's port (metrics/). */
  metrics: boolean;
  /** A bearer token /metrics asks for; undefined: only loopback clients may read it. */
  metricsToken: string | undefined;
  /** Inbox agent: an OpenAI-compatible chat completions URL; undefined: agents keep their settings and never call a model. */
  agentUrl: string | undefined;
  /** Inbox agent: the endpoint's bearer key (none for an endpoint that asks for none) and the model asked. */
  agentApiKey: string | undefined;
  agentModel: string | undefined;
  /** Inbox agent: how long one request to the endpoint may take (ms). */
  agentTimeoutMs: number;
  /** Inbox agent: waits before each retry of a failed request; one more attempt than delays, then the draft is given up. */
  agentRetryDelaysMs: number[];
}

export { ConfigError };

interface Setting<T> {
  variable: string;
  /** The default as the README shows it, where the reader does not carry it (a computed or absent default). */
  shown?: string;
  help: string;
  read: Read<T>;
}

const DEFAULT_PORT = 3000;

const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';

/**
 * The operator contract: every variable Postline reads, in the README's order. The README's
 * table is generated from it (`npm run docs`), and test/config.unit.test.ts fails when they differ.
 */
export const SETTINGS: { [K in keyof Config]: Setting<Config[K]> } = {
  port: { variable: 'PORT', help: 'HTTP API port', read: integer(DEFAULT_PORT) },
  host: { variable: 'HOST', help: 'address the HTTP API listens on', read: text('0.0.0.0') },
  databaseUrl: {
    variable: 'DATABASE_URL',
    shown: 'unset',
    help: '`postgres://…`: use that server instead of the embedded one',
    read: url(['postgres:', 'postgresql:']),
  },
  dataDir: {
    variable: 'POSTLINE_DATA_DIR',
    shown: '`./data`',
    help: "embedded PostgreSQL's data, its password file and (without POSTLINE_SECRET_KEY) the secret key",
    read: (raw) => path.resolve(unset(raw) ? './data' : raw!),
  },
  secretKey: {
    variable: 'POSTLINE_SECRET_KEY',
    shown: 'unset (embedded: `$POSTLINE_DATA_DIR/secret.key`, made at first start)',
    help: 'the key that seals the secrets Postline stores (DKIM private keys, webhook signing secrets, the URL-signing secret), 32 bytes in base64 or hex (`openssl rand -base64 32`); required with `DATABASE_URL`, the same on every node. Keep it apart from the database and its backups: without it they hold no usable secret, and with the wrong one Postline refuses to start',
    read: optionalText,
  },
  secretKeyFile: {
    variable: 'POSTLINE_SECRET_KEY_FILE',
    shown: 'unset',
    help: 'a file holding POSTLINE_SECRET_KEY instead (a mounted secret)',
    read: optionalText,
  },
  secretKeyPrevious: {
    variable: 'POSTLINE_SECRET_KEY_PREVIOUS',
    shown: 'unset',
    help: 'during a key rotation, the keys secrets may still be sealed with (comma-separated): they open them, the current key seals; `postline secrets rotate` moves everything to the current key (docs/SECURITY.md)',
    read: list,
  },
  publicUrl: {
    variable: 'POSTLINE_PUBLIC_URL',
    shown: '`http://localhost:$PORT`',
    help: 'base of links in mail (open pixel, click redirects, unsubscribe pages) and of attachment download URLs',
    read: (raw, _name, env) => (unset(raw) ? `http://localhost:${SETTINGS.port.read(env.PORT, 'PORT', env)}` : raw!).replace(/\/+$/, ''),
  },
  smtpPorts: {
    variable: 'POSTLINE_SMTP_PORTS',
    help: 'SMTP ports with STARTTLS offered, comma-separated; production: `25,587,2587`; empty: none; `0`: a random free port',
    read: portList([2587]),
  },
  smtpsPorts: {
    variable: 'POSTLINE_SMTPS_PORTS',
    help: 'SMTP ports with implicit TLS, comma-separated; production: `465,2465`; empty: none; `0`: a random free port',
    read: portList([2465]),
  },
  smtpHostname: {
    variable: 'POSTLINE_SMTP_HOSTNAME',
    shown: 'the host name',
    help: 'EHLO name; DNS records of domains point at it',
    read: text(() => os.hostname()),
  },
  tlsCertFile: {
    variable: 'POSTLINE_TLS_CERT',
    shown: 'self-signed for `POSTLINE_SMTP_HOSTNAME`, made once in `$POSTLINE_DATA_DIR/tls/`',
    help: "PEM file of the SMTP ports' certificate",
    read: optionalText,
  },
  tlsKeyFile: { variable: 'POSTLINE_TLS_KEY', shown: 'with `POSTLINE_TLS_CERT`', help: "PEM file of the SMTP ports' private key", read: optionalText },
  smtpTimeoutMs: { variable: 'POSTLINE_SMTP_TIMEOUT', help: 'an idle SMTP session is closed after this long', read: timeout('60s') },
  smtpDataTimeoutMs: { variable: 'POSTLINE_SMTP_DATA_TIMEOUT', help: "a message's DATA must arrive within this long", read: timeout('10m') },
  smtpMaxConnections: { variable: 'POSTLINE_SMTP_MAX_CONNECTIONS', help: 'open SMTP connections per port', read: integer(1000, 1) },
  smtpMaxConnectionsPerIp: {
    variable: 'POSTLINE_SMTP_MAX_CONNECTIONS_PER_IP',
    help: 'open SMTP connections per client address, over all ports',
    read: integer(50, 1),
  },
  acmeEmail: {
    variable: 'POSTLINE_ACME_EMAIL',
    shown: 'unset (no ACME)',
    help: "get the SMTP listeners' certificate for POSTLINE_SMTP_HOSTNAME from an ACME CA (Let's Encrypt by default): the account's contact (giving it agrees to the CA's terms). Obtained at first start (the self-signed one until then), renewed when a third of its life is left, reloaded without dropping sessions, shared by all nodes (stored sealed in the database). The CA's challenges (POSTLINE_ACME_CHALLENGE) are answered by every node with the smtp role. Not with POSTLINE_TLS_CERT",
    read: emailAddress,
  },
  acmeDirectory: {
    variable: 'POSTLINE_ACME_DIRECTORY',
    shown: `\`${LETS_ENCRYPT}\``,
    help: "the ACME CA's directory URL",
    read: (raw, name, env) => url(['https:'])(raw, name, env) ?? LETS_ENCRYPT,
  },
  acmeChallenge: {
    variable: 'POSTLINE_ACME_CHALLENGE',
    shown: '`http-01`',
    help: 'how the ACME CA checks that this is the host it certifies, whichever port the firewall opens to it: `http-01`, a request to port 80 (POSTLINE_ACME_HTTP_PORT), or `tls-alpn-01`, a TLS handshake on port 443 (POSTLINE_ACME_TLS_PORT; not with POSTLINE_HTTPS_PORT, which holds 443 for the tracking hosts)',
    read: oneOf(['http-01', 'tls-alpn-01'], () => 'http-01'),
  },
  acmeHttpPort: {
    variable: 'POSTLINE_ACME_HTTP_PORT',
    help: "where every node with the smtp role answers the CA's http-01 challenges (port 80 as the CA reaches it; another when something in front forwards 80 to it)",
    read: integer(80),
  },
  acmeTlsPort: {
    variable: 'POSTLINE_ACME_TLS_PORT',
    help: "where every node with the smtp role answers the CA's tls-alpn-01 challenges (port 443 as the CA reaches it; another when something in front forwards 443 to it)",
    read: integer(443),
  },
  httpsPort: {
    variable: 'POSTLINE_HTTPS_PORT',
    shown: 'unset (none)',
    help: "an HTTPS listener (443 as clients reach it) for the domains' own tracking hosts (`tracking_subdomain`): each verified host gets its certificate from the ACME CA (needs POSTLINE_ACME_EMAIL) and serves only tracking; unset, a proxy in front terminates TLS for them",
    read: (raw, name, env) => (unset(raw) ? undefined : integer(443)(raw, name, env)),
  },
  acmeCaFile: {
    variable: 'POSTLINE_ACME_CA_FILE',
    shown: 'unset (the trust store)',
    help: "a PEM file of the CA that the ACME directory's HTTPS certificate comes from, for a private ACME server (step-ca, Pebble)",
    read: optionalText,
  },
  smtpMessageMemoryBytes: {
    variable: 'POSTLINE_SMTP_MEMORY_MB',
    shown: '`512`',
    help: 'memory all SMTP sessions together may use for messages being received and accepted; beyond it a message gets `452 4.3.1` (retry later)',
    read: (raw, name, env) => integer(512, 1)(raw, name, env) * 1024 * 1024,
  },
  dnsServers: {
    variable: 'POSTLINE_DNS_SERVERS',
    shown: "the system's",
    help: 'resolvers for MX lookups, domain verification, inbound SPF/DKIM/DMARC and webhook hosts, `ip[:port],…`',
    read: list,
  },
  outboundPort: { variable: 'POSTLINE_OUTBOUND_PORT', help: 'port used when connecting to MX hosts', read: integer(25, 1) },
  outboundIps: {
    variable: 'POSTLINE_OUTBOUND_IPS',
    shown: "unset (the system's choice)",
    help: "local addresses (this machine's, `ip,…`) outgoing SMTP connections leave from, in turn; a domain pinned to some of them (`PATCH /domains/:id` `outbound_ips`) sends only from those",
    read: ipList,
  },
  dnsbls: {
    variable: 'POSTLINE_DNSBLS',
    help: 'DNS blocklists the outbound addresses are checked against (`zone,…`; empty: none), once per POSTLINE_DNSBL_INTERVAL by one node for the whole cluster: POSTLINE_OUTBOUND_IPS of every node, or, unset, the address the system sends from when it is public (behind NAT it is not known: skipped, with a log line); none with POSTLINE_RELAY_URL (the addresses of the relay carry the reputation), nothing at all with POSTLINE_SANDBOX. A listing shows on the domain pages (`GET /domains/:id` `blocklists`), in `GET /queue` and in the metric `postline_blocklist_listed`, and records `domain.blocklisted` / `domain.unblocklisted` for each domain sending from the address. Ask them through a resolver of your own (POSTLINE_DNS_SERVERS): most lists refuse public resolvers, an answer Postline records as a check not possible, never as a listing',
    read: zoneList(['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org']),
  },
  domainBlocklists: {
    variable: 'POSTLINE_DOMAIN_BLOCKLISTS',
    help: 'DNS blocklists the verified sending domains are checked against (`zone,…`; empty: none), as POSTLINE_DNSBLS',
    read: zoneList(['dbl.spamhaus.org', 'multi.surbl.org']),
  },
  dnsblIntervalMs: { variable: 'POSTLINE_DNSBL_INTERVAL', help: 'how often the blocklists are asked about every address and domain', read: timeout('1h') },
  relayUrl: {
    variable: 'POSTLINE_RELAY_URL',
    shown: 'unset (direct MX)',
    help: '`smtp(s)://user:pass@host:port`: send everything through this smarthost',
    read: url(['smtp:', 'smtps:']),
  },
  sandbox: {
    variable: 'POSTLINE_SANDBOX',
    shown: '`false`',
    help: '`true`: nothing leaves the machine. Mail goes through the whole production path (validation, templates, suppressions, DKIM signing, tracking, events, webhooks) and its last hop is the built-in catcher instead of an MX host (`GET /sandbox/messages`); any sending domain may be used without DNS (created on first use, `sandboxed: true`); `resend.dev` test addresses still bounce, complain and so on',
    read: bool(() => false),
  },
  sandboxReleaseUrl: {
    variable: 'POSTLINE_SANDBOX_RELEASE_URL',
    shown: 'unset (no release)',
    help: "`smtp(s)://user:pass@host:port`, with POSTLINE_SANDBOX only: where captured mail released to a real address goes, as Mailpit's relay (`POST /sandbox/messages/:id/release`, the dashboard's Release). A release is a new email through the accept pipeline (its own id, events, webhooks, suppressions), the captured message's bytes with a new Message-ID and signature; its delivery is still handed to the catcher, which passes it on to this server in the same SMTP transaction and answers with that server's reply. Only released mail goes there, nothing else leaves the machine; unset, release is refused (403). Set it on every node of the cluster (the API's nodes allow the release, the workers' catchers pass it on); POSTLINE_RELAY_URL plays no part in a sandbox",
    read: url(['smtp:', 'smtps:']),
  },
  sandboxLinkCheckAllowPrivate: {
    variable: 'POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE',
    shown: '`false`',
    help: "which non-public addresses the link check of captured mail may reach (`POST /sandbox/messages/:id/link-check`), with the values and rule of POSTLINE_WEBHOOK_ALLOW_PRIVATE: the links are the sender's, so closed by default; `127.0.0.1` or `true` on a developer's machine checks links to an app running there",
    read: privateAccess,
  },
  providers: {
    variable: 'POSTLINE_PROVIDERS_FILE',
    shown: 'unset (the built-in table)',
    help: 'a JSON file of mailbox providers, `[{"name": "acme", "mx": [".mx.acme.net"], "domains": ["acme.com"], "shaping": {"connections": 5, "messages_per_connection": 50, "messages_per_minute": 600}}]` (`shaping` and each of its fields optional: 10 connections, 100 messages a connection, no rate limit), tried before the built-in table (Google, Microsoft, Yahoo, Apple, Zoho, Proton, GMX/web.de, Mail.ru, Yandex, Fastmail; an entry with the same name replaces one): recipient domains roll up to providers by their MX hosts in the queue view and metrics, a provider can be paused as a whole, and each node sends to it within its shaping limits, slowing down when it answers 421 or "rate limited"',
    read: (raw, name) => {
      if (unset(raw)) return undefined;
      try {
        return [...providerTable(JSON.parse(readFileSync(raw!.trim(), 'utf8'))).entries];
      } catch (err) {
        throw new ConfigError(`${name}: ${(err as Error).message}`);
      }
    },
  },
  bootstrapApiKey: {
    variable: 'POSTLINE_BOOTSTRAP_API_KEY',
    shown: 'unset',
    help: 'make sure a full-access key with this token exists',
    read: optionalText,
  },
  dashboardIdleTimeoutMs: {
    variable: 'POSTLINE_DASHBOARD_IDLE_TIMEOUT',
    help: 'a dashboard session without a request for this long ends (and 7 days after sign-in in any case)',
    read: timeout('12h'),
  },
  rateLimitPerSecond: {
    variable: 'POSTLINE_RATE_LIMIT',
    help: 'API requests (and SMTP messages) per second per account',
    read: integer(10, 1),
  },
  publicRateLimitPerSecond: {
    variable: 'POSTLINE_PUBLIC_RATE_LIMIT',
    help: 'requests per second per client address to the links in mail (open pixel, click redirects, download and unsubscribe links), per node; beyond it `429`',
    read: integer(100, 1),
  },
  trustProxy: {
    variable: 'POSTLINE_TRUST_PROXY',
    shown: '`false`',
    help: "whose `X-Forwarded-For` gives the client address (clicks' `ipAddress`, per-address limits): `true` (every proxy), a number of hops, or addresses and CIDR ranges (`127.0.0.1,10.0.0.0/8`, `loopback`)",
    read: trustProxy,
  },
  redisUrl: { variable: 'REDIS_URL', shown: 'unset (in-process)', help: 'share rate-limit counters between nodes', read: url(['redis:', 'rediss:']) },
  shutdownTimeoutMs: {
    variable: 'POSTLINE_SHUTDOWN_TIMEOUT',
    help: 'on SIGTERM or Ctrl-C the process exits within this: `/readyz` turns 503, new SMTP sessions get `421`, open ones have a third of it to finish, HTTP requests and delivery attempts in flight finish, claimed mail is released for other nodes; what is still running then is abandoned (its leases expire)',
    read: timeout('30s'),
  },
  downloadUrlTtlMs: {
    variable: 'POSTLINE_DOWNLOAD_URL_TTL',
    help: "how long the API's download URLs (attachments, received messages) work without an API key",
    read: duration('1h'),
  },
  maxQueueAgeMs: {
    variable: 'POSTLINE_MAX_QUEUE_AGE',
    help: 'how long delivery is retried before an email fails (`3d`, `12h`, …)',
    read: duration('3d'),
  },
  dkimRetireAfterMs: {
    variable: 'POSTLINE_DKIM_RETIRE_AFTER',
    help: 'after a DKIM key rotation switches to the new key, how long the old key is `retiring`: its TXT record should stay published that long, for mail signed with it still on its way; never shorter than POSTLINE_MAX_QUEUE_AGE, whichever is longer applies',
    read: duration('7d'),
  },
  retryDelaysMs: {
    variable: 'POSTLINE_RETRY_DELAYS',
    help: 'delays between delivery attempts after a temporary failure; the last repeats',
    read: durationList('1m,5m,15m,30m,1h,2h,4h'),
  },
  mtaStsCheckMs: {
    variable: 'POSTLINE_MTA_STS_CHECK_INTERVAL',
    help: "how often a recipient domain's `_mta-sts` TXT record is looked up again, by one node for the whole cluster; its policy (RFC 8461) is fetched again when the record's id changes or the policy nears its `max_age`, and a policy whose refresh fails is kept until it expires",
    read: duration('1h'),
  },
  tlsReportsFrom: {
    variable: 'POSTLINE_TLS_REPORTS_FROM',
    shown: 'unset (no TLS reports sent)',
    help: "the address daily TLS reports (RFC 8460) go from, to every recipient domain that asks for them in its `_smtp._tls` TXT record (`mailto:` through Postline's own sending, `https:` by POST): how many sessions met its MTA-STS or DANE policy and how many failed, and why. Its domain must be a verified sending domain of an account (its DKIM key signs them); unset, sessions are still counted but no report is sent",
    read: emailAddress,
  },
  logRetentionDays: { variable: 'POSTLINE_LOG_RETENTION_DAYS', help: 'how long API request logs are kept', read: integer(30, 1) },
  bodyLimitBytes: {
    variable: 'POSTLINE_BODY_LIMIT',
    shown: '`62914560` (60 MiB)',
    help: "largest request body the API reads, in bytes: Resend's 40 MB of email after base64 and JSON",
    read: integer(60 * 1024 * 1024, 1024),
  },
  deliveryConcurrency: { variable: 'POSTLINE_DELIVERY_CONCURRENCY', help: 'parallel SMTP sessions of a node in total', read: integer(100, 1) },
  deliveryConcurrencyPerHost: {
    variable: 'POSTLINE_DELIVERY_CONCURRENCY_PER_HOST',
    help: "parallel SMTP sessions of a node per MX host of no known provider (a provider's own limit is in its shaping: POSTLINE_PROVIDERS_FILE)",
    read: integer(20, 1),
  },
  shaping: {
    variable: 'POSTLINE_SHAPING',
    shown: '`true`',
    help: '`false` turns traffic shaping off: no messages-per-minute limits, no slowing down when a provider answers 421 or "rate limited"; each destination keeps its connection and messages-per-connection limits',
    read: bool(() => true),
  },
  shapingQuietMs: {
    variable: 'POSTLINE_SHAPING_QUIET',
    help: 'the window providers are taken to count messages over (a sliding minute): a 421 or "rate limited" reply cuts the rate to 85 % of what the provider accepted over the last one, and after each sixth of it without such a reply the rate grows a step, back to its limit',
    read: timeout('1m'),
  },
  // Resend's schedule: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
  webhookRetryDelaysMs: {
    variable: 'POSTLINE_WEBHOOK_RETRY_DELAYS',
    help: 'waits before each retry of a failed webhook (the first attempt is immediate)',
    read: durationList('5s,5m,30m,2h,5h,10h,10h'),
  },
  webhookTimeoutMs: { variable: 'POSTLINE_WEBHOOK_TIMEOUT', help: 'how long one webhook attempt may take', read: timeout('15s') },
  webhookDisableAfterMs: {
    variable: 'POSTLINE_WEBHOOK_DISABLE_AFTER',
    help: 'an endpoint that has only failed for this long is disabled',
    read: duration('5d'),
  },
  webhookConcurrency: { variable: 'POSTLINE_WEBHOOK_CONCURRENCY', help: 'webhook requests in flight in total', read: integer(200, 1) },
  webhookConcurrencyPerEndpoint: {
    variable: 'POSTLINE_WEBHOOK_CONCURRENCY_PER_ENDPOINT',
    help: 'webhook requests in flight per endpoint',
    read: integer(50, 1),
  },
  webhookLogRetentionDays: {
    variable: 'POSTLINE_WEBHOOK_LOG_RETENTION_DAYS',
    help: 'how long webhook messages and attempts are kept',
    read: integer(30, 1),
  },
  receivedRetentionMs: {
    variable: 'POSTLINE_RECEIVED_RETENTION',
    shown: 'unset (kept)',
    help: "how long received mail (raw message, parsed email, attachments) is kept (`30d`, `12h`, …); older mail is deleted by the worker's housekeeping, at start and every 10 minutes",
    read: optionalPositiveDuration,
  },
  reportRetentionMs: {
    variable: 'POSTLINE_REPORT_RETENTION',
    help: "how long received DMARC aggregate and SMTP TLS reports (GET /domains/:id/dmarc-reports, /tls-reports) are kept; older ones are deleted by the worker's housekeeping",
    shown: '`400d`',
    read: (raw, name, env) => {
      const ms = duration('400d')(raw, name, env);
      if (ms <= 0) throw new ConfigError(`${name} must be longer than 0`);
      return ms;
    },
  },
  webhookAllowPrivate: {
    variable: 'POSTLINE_WEBHOOK_ALLOW_PRIVATE',
    shown: '`false`',
    help: "which non-public addresses webhook endpoints may reach: `false` (none), `true` (all: closed networks, tests), or addresses and CIDR ranges (`10.0.0.0/8,fd00::/8`). Closed by default because an endpoint is a tenant's choice: open, it would let any account make the server POST into its own network (the cloud metadata service, admin ports on loopback) and read the answer in the delivery log. Refused addresses: loopback, private, link-local, carrier-grade NAT, multicast, reserved, IPv6 unique- and link-local, IPv4 inside IPv6. An endpoint naming such an address is refused with `422`; a host name is resolved (through `POSTLINE_DNS_SERVERS`) and checked at every attempt, the connection pinned to the addresses checked",
    read: privateAccess,
  },
  attachmentFetchAllowPrivate: {
    variable: 'POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE',
    shown: '`false`',
    help: 'the same rule, with the same values, for attachment `path` URLs (each redirect checked too)',
    read: privateAccess,
  },
  attachmentFetchTimeoutMs: {
    variable: 'POSTLINE_ATTACHMENT_FETCH_TIMEOUT',
    help: 'deadline of fetching one attachment `path`, redirects and body included',
    read: timeout('10s'),
  },
  workerThread: {
    variable: 'POSTLINE_WORKER_THREAD',
    shown: '`true` with more than one core',
    help: 'run the `worker` role in its own thread when the process also serves `api` or `smtp`',
    read: bool(() => os.availableParallelism() > 1),
  },
  broadcastChunkSize: {
    variable: 'POSTLINE_BROADCAST_CHUNK_SIZE',
    help: 'contacts per broadcast fan-out chunk: emails accepted and committed together, the unit a restart resumes after',
    read: integer(2000, 1),
  },
  metrics: {
    variable: 'POSTLINE_METRICS',
    shown: '`true`',
    help: "record Prometheus metrics and serve them at `/metrics` on the API's port (docs/reference/metrics.md); `false`: no metrics, `/metrics` is 404",
    read: bool(() => true),
  },
  metricsToken: {
    variable: 'POSTLINE_METRICS_TOKEN',
    shown: 'unset (loopback clients only)',
    help: "`/metrics` asks for this as a bearer token (`Authorization: Bearer …`); unset, only clients on loopback may read it (the connection's own address: a request forwarded by a proxy never counts as one)",
    read: optionalText,
  },
  agentUrl: {
    variable: 'POSTLINE_AGENT_URL',
    shown: 'unset (no model is called)',
    help: "an OpenAI-compatible chat completions URL (`https://api.openai.com/v1/chat/completions`, a local server's `http://127.0.0.1:8080/v1/chat/completions`): the inbox agent drafts a reply to each new thread of an inbox whose agent has the `draft_reply` action, with its instructions and tone, as a draft for a person to send (it never sends). The thread's text is sent to this endpoint. Unset: agents' settings are kept and nothing else happens. Give it (and the key and model) to nodes with the `smtp` role, which queue the drafting as mail arrives, and the `worker` role, which calls the model",
    read: url(['http:', 'https:']),
  },
  agentApiKey: {
    variable: 'POSTLINE_AGENT_API_KEY',
    shown: 'unset (no `Authorization` header)',
    help: 'the bearer key sent to `POSTLINE_AGENT_URL`',
    read: optionalText,
  },
  agentModel: {
    variable: 'POSTLINE_AGENT_MODEL',
    shown: 'unset; required with `POSTLINE_AGENT_URL`',
    help: 'the `model` asked at `POSTLINE_AGENT_URL` (`gpt-4o-mini`, …)',
    read: (raw, name, env) => {
      if (unset(raw) && !unset(env.POSTLINE_AGENT_URL)) throw new ConfigError(`${name} must be set with POSTLINE_AGENT_URL`);
      return optionalText(raw, name, env);
    },
  },
  agentTimeoutMs: { variable: 'POSTLINE_AGENT_TIMEOUT', help: 'how long one request to `POSTLINE_AGENT_URL` may take, answer included', read: timeout('60s') },
  agentRetryDelaysMs: {
    variable: 'POSTLINE_AGENT_RETRY_DELAYS',
    help: 'waits before each retry of a failed request to `POSTLINE_AGENT_URL` (an error status, a timeout, an answer without a reply); when the last retry fails too, the thread gets no draft and the failure is logged',
    read: durationList('30s,2m,10m,30m'),
  },
  logLevel: { variable: 'LOG_LEVEL', help: 'pino level', read: text('info') },
  logFormat: {
    variable: 'POSTLINE_LOG_FORMAT',
    shown: '`pretty` on a terminal, else `json`',
    help: '`pretty`: a readable line per entry; `json`: one JSON object per line, for log collectors',
    read: oneOf(['pretty', 'json'], () => (process.stdout.isTTY ? 'pretty' : 'json')),
  },
};

/** Reads every setting; an invalid value throws a ConfigError that names its variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS)) config[key] = setting.read(env[setting.variable], setting.variable, env);
  if (config.acmeEmail && config.tlsCertFile) throw new ConfigError('POSTLINE_ACME_EMAIL and POSTLINE_TLS_CERT both choose the SMTP certificate: set one');
  if (config.httpsPort !== undefined && !config.acmeEmail) {
    throw new ConfigError('POSTLINE_HTTPS_PORT serves the tracking hosts with certificates from an ACME CA: set POSTLINE_ACME_EMAIL too');
  }
  if (config.httpsPort !== undefined && config.acmeChallenge === 'tls-alpn-01') {
    throw new ConfigError(
      "POSTLINE_ACME_CHALLENGE=tls-alpn-01 needs port 443, where POSTLINE_HTTPS_PORT serves the tracking hosts: use http-01 (the API answers it under each tracking host's name too)",
    );
  }
  if (config.sandboxReleaseUrl && !config.sandbox) throw new ConfigError('POSTLINE_SANDBOX_RELEASE_URL releases captured mail: set POSTLINE_SANDBOX=true too');
  return config as unknown as Config;
}

/** `POSTLINE_*` variables that no setting reads: most likely typos, worth a warning at start. */
export function unknownVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(Object.values(SETTINGS).map((s) => s.variable));
  return Object.keys(env).filter((name) => name.startsWith('POSTLINE_') && !known.has(name));
}

/** The README's configuration table (between its `config-table` markers), from SETTINGS. */
export function configurationTable(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => {
    const shown = s.shown ?? s.read.shown;
    if (shown === undefined) throw new Error(`${s.variable}: no default to show`);
    return `| \`${s.variable}\` | ${s.help} | ${shown} |`;
  });
  return ['| variable | meaning | default |', '|---|---|---|', ...rows].join('\n');
}
