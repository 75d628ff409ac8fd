// The generated parts of the docs: text between `<!-- NAME: … -->` and `<!-- /NAME -->`; and the
// dashboard's API types (web/src/api-types.ts), generated whole from the OpenAPI document.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiKeys } from '../src/accounts/api-keys.js';
import { OAuthGrants } from '../src/accounts/oauth-grants.js';
import type { Route } from '../src/api/route.js';
import { contactImportRoutes } from '../src/audience/imports/routes.js';
import { audienceRoutes } from '../src/audience/routes.js';
import { unsubscribeRoutes } from '../src/audience/unsubscribe-routes.js';
import { automationRoutes } from '../src/automations/routes.js';
import { broadcastRoutes } from '../src/broadcasts/routes.js';
import { challengeRoutes } from '../src/certificates/tracking-https.js';
import { loadConfig } from '../src/config.js';
import { customEventRoutes } from '../src/custom-events/routes.js';
import type { Db } from '../src/db/database.js';
import { DnsResolver } from '../src/dns/resolver.js';
import { DkimRotation, dkimRotationDeps } from '../src/domains/dkim-rotation.js';
import { DomainClaims } from '../src/domains/domain-claims.js';
import { recordTargets } from '../src/domains/dns-records.js';
import { Domains } from '../src/domains/domains.js';
import { acceptDeps, emailRoutes } from '../src/emails/routes.js';
import { healthRoutes } from '../src/health/routes.js';
import { inboundRoutes } from '../src/inbound/routes.js';
import { inboxRoutes } from '../src/inboxes/routes.js';
import { RequestLogs } from '../src/logs/request-logs.js';
import { metricsRoutes } from '../src/metrics/routes.js';
import { openApiDocument } from '../src/openapi/document.js';
import { routeList } from '../src/route-list.js';
import { openApiRoutes } from '../src/openapi/routes.js';
import { ProviderTable } from '../src/providers/providers.js';
import { queueRoutes } from '../src/queue/routes.js';
import { sandboxRoutes } from '../src/sandbox/routes.js';
import { suppressionRoutes } from '../src/suppressions/routes.js';
import { templateRoutes } from '../src/templates/routes.js';
import { trackingRoutes } from '../src/tracking/routes.js';
import { getUsage } from '../src/usage/get-usage.js';
import { dashboardSessionRoutes } from '../src/users/routes.js';
import { Sessions } from '../src/users/sessions.js';
import { webhookRoutes } from '../src/webhooks/routes.js';
import { webhookDestinations } from '../src/webhooks/webhook-fields.js';

const markers = (name: string) => new RegExp(`(<!-- ${name}:[^\\n]*-->\\n)[\\s\\S]*?(\\n<!-- /${name} -->)`);

/** The part called `name` of `doc`, or undefined when its markers are missing. */
export function generatedPart(doc: string, name: string): string | undefined {
  const match = markers(name).exec(doc);
  return match ? match[0].slice(match[1]!.length, match[0].length - match[2]!.length) : undefined;
}

/** `doc` with the part called `name` replaced by `content`. */
export function withGenerated(doc: string, name: string, content: string): string {
  if (!markers(name).test(doc)) throw new Error(`no <!-- ${name}: --> … <!-- /${name} --> markers`);
  return doc.replace(markers(name), (_all, open: string, close: string) => `${open}${content}${close}`);
}

const ROOT = new URL('..', import.meta.url);

/** Where the dashboard's API types are written, from the repository's root. */
export const API_TYPES_FILE = 'web/src/api-types.ts';

/**
 * Every route a node can mount (route-list.ts), as an api node in sandbox mode with /metrics
 * mounts it (the dashboard uses the sandbox's routes), built without a database: building a
 * route only keeps its dependencies, its handler uses them. test/web/api-types.test.ts checks
 * that such a node serves the same document.
 */
function everyRoute(): Route[] {
  const db = new Proxy({} as Db, {
    get(_target, property) {
      throw new Error(`db.${String(property)}: the routes are built here to be described, not served`);
    },
  });
  const config = loadConfig({ POSTLINE_SANDBOX: 'true' });
  const dns = new DnsResolver(['127.0.0.1']);
  const dkimRotation = new DkimRotation(dkimRotationDeps(db, dns, config));
  return routeList({
    db,
    config,
    dns,
    accept: acceptDeps(db, config, dns),
    sessions: new Sessions(db, { idleMs: config.dashboardIdleTimeoutMs, secureCookie: false }),
    apiKeys: new ApiKeys(db),
    domains: new Domains({ db, dns, hosts: recordTargets(config), sandbox: config.sandbox, outboundIps: config.outboundIps, dkimRotation }),
    requestLogs: new RequestLogs(db, () => {}),
    node: { phase: () => 'ready', roles: () => ({}) },
    metricsRoutes: metricsRoutes(config.metricsToken, async () => ({ contentType: 'text/plain', text: '' })),
  });
}

/** The OpenAPI document of every route, as GET /openapi.json of a node in sandbox mode serves it. */
export function fullOpenApiDocument(): Record<string, unknown> {
  const { version } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
  return openApiDocument(everyRoute(), { version });
}

const HEADER = `// Generated by \`npm run docs\` (scripts/generated-docs.ts): do not edit. The types of Postline's
// HTTP API (openapi-typescript), from the OpenAPI document of every route, as GET /openapi.json of
// a node in sandbox mode serves it; test/web/api-types.test.ts fails when this file is out of date.
`;

/** web/src/api-types.ts: the document's types (openapi-typescript), formatted as biome formats the web app. */
export async function apiTypes(): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  // An object schema that lists no properties (`{type: 'object'}`) takes any: Record<string, unknown>, not Record<string, never>.
  const nodes = await openapiTS(fullOpenApiDocument() as never, { emptyObjectsUnknown: true });
  // `paths` and the `components` they refer to; the document has no webhooks, $defs or operation ids, whose types would be empty.
  const kept = nodes.filter((node) => ['paths', 'components'].includes((node as { name?: { text?: string } }).name?.text ?? ''));
  const biome = spawnSync(fileURLToPath(new URL('node_modules/.bin/biome', ROOT)), ['format', `--stdin-file-path=${API_TYPES_FILE}`], {
    cwd: fileURLToPath(ROOT),
    input: HEADER + astToString(kept),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (biome.status !== 0) throw new Error(`biome format failed: ${biome.stderr}`);
  return biome.stdout;
}
