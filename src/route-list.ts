// Every route the api role mounts, in one list: server.ts serves it, and the reference docs
// (scripts/generated-docs.ts) describe it without a database. GET /openapi.json is built from
// the same list, itself included.
import type { ApiKeys } from './accounts/api-keys.js';
import { OAuthGrants } from './accounts/oauth-grants.js';
import { validation } from './api/errors.js';
import type { Route } from './api/route.js';
import { contactImportRoutes } from './audience/imports/routes.js';
import { audienceRoutes } from './audience/routes.js';
import { unsubscribeRoutes } from './audience/unsubscribe-routes.js';
import { automationRoutes } from './automations/routes.js';
import { broadcastRoutes } from './broadcasts/routes.js';
import { challengeRoutes } from './certificates/tracking-https.js';
import type { Config } from './config.js';
import { customEventRoutes } from './custom-events/routes.js';
import type { Db } from './db/database.js';
import type { DnsResolver } from './dns/resolver.js';
import { reportRoutes } from './dmarc-reports/routes.js';
import { DomainClaims } from './domains/domain-claims.js';
import type { Domains } from './domains/domains.js';
import { recordTargets } from './domains/dns-records.js';
import { DestinationPolicy } from './egress/destination-policy.js';
import { type AcceptDeps, acceptEmails } from './emails/accept.js';
import type { EmailRequest } from './emails/email-request.js';
import { emailRoutes } from './emails/routes.js';
import { healthRoutes, type NodeState } from './health/routes.js';
import { inboundRoutes } from './inbound/routes.js';
import { inboxRoutes } from './inboxes/routes.js';
import type { RequestLogs } from './logs/request-logs.js';
import { openApiRoutes } from './openapi/routes.js';
import { ProviderTable } from './providers/providers.js';
import { queueRoutes } from './queue/routes.js';
import { messageParser } from './message/parse-message.js';
import type { AcceptComposed } from './sandbox/release.js';
import { sandboxRoutes } from './sandbox/routes.js';
import { SmtpReply } from './smtp/replies.js';
import { parseSubmission, submissionRequest } from './smtp/submission-request.js';
import { suppressionRoutes } from './suppressions/routes.js';
import { templateRoutes } from './templates/routes.js';
import { trackingRoutes } from './tracking/routes.js';
import { getUsage } from './usage/get-usage.js';
import { dashboardSessionRoutes } from './users/routes.js';
import type { Sessions } from './users/sessions.js';
import { webhookRoutes } from './webhooks/routes.js';
import { webhookDestinations } from './webhooks/webhook-fields.js';

interface RouteListParts {
  db: Db;
  config: Config;
  dns: DnsResolver;
  accept: AcceptDeps;
  sessions: Sessions;
  apiKeys: ApiKeys;
  domains: Domains;
  requestLogs: RequestLogs;
  node: NodeState;
  /** GET /metrics, where this node records metrics. */
  metricsRoutes?: Route[];
}

/**
 * The sandbox's release (sandbox/release.ts): a captured message accepted as SMTP submission
 * accepts one (its header fields describe the email, the envelope is the release's addresses),
 * from the API. Bound here: the sandbox is a shared service, which never imports the accept pipeline.
 */
function acceptComposed(accept: AcceptDeps): AcceptComposed {
  return async (principal, { raw, recipients }, alsoCommit) => {
    let request: EmailRequest;
    try {
      request = submissionRequest(await parseSubmission(messageParser, raw, recipients));
    } catch (err) {
      if (err instanceof SmtpReply) throw validation(`The captured message cannot be sent as it is: ${err.text}`);
      throw err;
    }
    const { ids } = await acceptEmails(accept, {
      principal,
      source: 'api',
      composeAt: 'delivery',
      payloads: [request],
      validate: (payload) => payload as EmailRequest,
      mode: 'strict',
      beforeCommit: (q, result) => alsoCommit(q, result.ids[0]!),
    });
    return ids[0]!;
  };
}

export function routeList({ db, config, dns, accept, sessions, apiKeys, domains, requestLogs, node, metricsRoutes }: RouteListParts): Route[] {
  const routes: Route[] = [
    ...dashboardSessionRoutes(db, sessions, config.publicUrl, config.sandbox),
    ...apiKeys.routes(),
    ...new OAuthGrants(db, apiKeys).routes(),
    ...domains.routes(),
    ...new DomainClaims({ db, dns, hosts: recordTargets(config), sandbox: config.sandbox }).routes(),
    ...reportRoutes(db, dns, config),
    ...inboundRoutes(db, config),
    ...inboxRoutes(db, accept),
    ...emailRoutes(db, config, dns, accept),
    ...suppressionRoutes(db),
    ...trackingRoutes(db),
    ...templateRoutes(db),
    ...webhookRoutes(db, webhookDestinations(config, dns)),
    ...audienceRoutes(db),
    ...contactImportRoutes(db),
    ...customEventRoutes(db),
    ...automationRoutes(db),
    ...broadcastRoutes(db, accept.sandbox),
    ...unsubscribeRoutes(db),
    ...requestLogs.routes(),
    getUsage(db, config.rateLimitPerSecond),
    ...queueRoutes(db, new ProviderTable(config.providers)),
    ...(config.sandbox
      ? sandboxRoutes(db, {
          releaseUrl: config.sandboxReleaseUrl,
          linkCheck: new DestinationPolicy(config.sandboxLinkCheckAllowPrivate, (host) => dns.addresses(host)),
          acceptComposed: acceptComposed(accept),
        })
      : []),
    ...healthRoutes(db, node),
    ...challengeRoutes(db),
    ...(metricsRoutes ?? []),
    ...openApiRoutes(() => routes),
  ];
  return routes;
}
