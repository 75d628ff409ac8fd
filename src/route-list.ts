// Every route the api role mounts, in one list: server.ts serves it, and the reference docs
// (scripts/generated-docs.ts) describe it without a database. GET /openapi.json is built from
// the same list, itself included.
import type { ApiKeys } from './accounts/api-keys.js';
import { OAuthGrants } from './accounts/oauth-grants.js';
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
import type { AcceptDeps } from './emails/accept.js';
import { emailRoutes } from './emails/routes.js';
import { healthRoutes, type NodeState } from './health/routes.js';
import { inboundRoutes } from './inbound/routes.js';
import { inboxRoutes } from './inboxes/routes.js';
import type { RequestLogs } from './logs/request-logs.js';
import { openApiRoutes } from './openapi/routes.js';
import { ProviderTable } from './providers/providers.js';
import { queueRoutes } from './queue/routes.js';
import { sandboxRoutes } from './sandbox/routes.js';
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
    ...(config.sandbox ? sandboxRoutes(db) : []),
    ...healthRoutes(db, node),
    ...challengeRoutes(db),
    ...(metricsRoutes ?? []),
    ...openApiRoutes(() => routes),
  ];
  return routes;
}
