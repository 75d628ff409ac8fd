// The fields POST /domains, PATCH /domains/:id and POST /domains/claim share: their schemas, the
// check of every request (api/request-schema.ts), and what a schema cannot say: a domain name's
// form, the region (Resend refuses another as invalid_region, not validation_error), outbound
// addresses, lower-casing.
import net from 'node:net';
import { ApiError, validation } from '../api/errors.js';
import { array, boolean, input, type JsonSchema, nullable, oneOfValues, string } from '../api/schema.js';
import { WARMUP_SETTINGS_SCHEMA, type WarmupSettings } from '../warmup/warmup-settings.js';

export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
type Region = (typeof REGIONS)[number];
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A host name of at least two labels, lower-cased (RFC 1035 letters, digits, hyphens). */
export function parseDomainName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  if (name.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    throw validation(`The domain name \`${raw}\` is not valid.`);
  }
  return name;
}

type Capability = 'enabled' | 'disabled';

/** The body of POST /domains, PATCH /domains/:id or POST /domains/claim once it passed its schema. */
export interface DomainFields {
  name?: string;
  /** Not checked by the schema: parseRegion. */
  region?: unknown;
  custom_return_path?: string;
  open_tracking?: boolean;
  click_tracking?: boolean;
  tls?: 'opportunistic' | 'enforced';
  capabilities?: { sending?: Capability; receiving?: Capability };
  tracking_subdomain?: string;
  warmup?: WarmupSettings;
  outbound_ips?: string[] | null;
}

export interface DomainSettings {
  openTracking?: boolean;
  clickTracking?: boolean;
  tls?: 'opportunistic' | 'enforced';
  sending?: boolean;
  receiving?: boolean;
  trackingSubdomain?: string;
}

export function settingsOf(fields: DomainFields): DomainSettings {
  const { sending, receiving } = fields.capabilities ?? {};
  return {
    openTracking: fields.open_tracking,
    clickTracking: fields.click_tracking,
    tls: fields.tls,
    trackingSubdomain: fields.tracking_subdomain?.toLowerCase(),
    ...(sending && { sending: sending === 'enabled' }),
    ...(receiving && { receiving: receiving === 'enabled' }),
  };
}

/** The region asked for, 'us-east-1' when none; any other value is Resend's invalid_region. */
export function parseRegion(region: unknown): Region {
  if (region === undefined) return 'us-east-1';
  if (!REGIONS.includes(region as Region)) throw new ApiError('invalid_region', `Region must be ${REGIONS.map((r) => `"${r}"`).join(' | ')}`);
  return region as Region;
}

/** The return path's label, lower-cased; 'send' when none. */
export const returnPathOf = (fields: DomainFields): string => fields.custom_return_path?.toLowerCase() ?? 'send';

/**
 * A DNS label in any case (stored lower-cased): LABEL as a JSON Schema pattern, without
 * look-arounds; with the Kelvin sign (U+212A), which lower-cases to k.
 */
const LABEL_SCHEMA = string({
  maxLength: 63,
  pattern: '^[A-Za-z0-9\\u212A](?:[A-Za-z0-9\\u212A-]{0,61}[A-Za-z0-9\\u212A])?$',
  'x-message': 'be a single DNS label',
});
const CAPABILITY_SCHEMA = oneOfValues(['enabled', 'disabled'], { 'x-message': 'be "enabled" or "disabled"' });
const NAME_SCHEMA = string({
  minLength: 1,
  format: 'hostname',
  'x-missing': 'Missing "name" field', // Resend's own words for this one (resend-compat-notes §2.3)
  description: 'A domain name of at least two labels, at most 253 characters (surrounding spaces and a final dot left out), in any case.',
});
/** Not a check (another value is Resend's invalid_region, parseRegion): a description. */
const REGION_SCHEMA: JsonSchema = {
  description: `One of ${REGIONS.map((r) => `"${r}"`).join(' | ')}; another value is refused with \`invalid_region\`.`,
  default: 'us-east-1',
  examples: REGIONS,
};
const TRACKING_SCHEMA = { open_tracking: boolean(), click_tracking: boolean() };
const SETTINGS_SCHEMA: Record<string, JsonSchema> = {
  ...TRACKING_SCHEMA,
  tls: oneOfValues(['opportunistic', 'enforced'], { description: 'enforced: never deliver without TLS.' }),
  capabilities: input({ sending: CAPABILITY_SCHEMA, receiving: CAPABILITY_SCHEMA }),
  tracking_subdomain: LABEL_SCHEMA,
};

export const CREATE_DOMAIN_SCHEMA = input(
  { name: NAME_SCHEMA, region: REGION_SCHEMA, custom_return_path: { ...LABEL_SCHEMA, default: 'send' }, ...SETTINGS_SCHEMA },
  ['name'],
);
/** POST /domains/claim: the settings of a claim's placeholder domain. */
export const CLAIM_DOMAIN_SCHEMA = input(
  { name: NAME_SCHEMA, region: REGION_SCHEMA, custom_return_path: { ...LABEL_SCHEMA, default: 'send' }, ...TRACKING_SCHEMA, tracking_subdomain: LABEL_SCHEMA },
  ['name'],
);
/** Postline: a domain's pin to some of POSTLINE_OUTBOUND_IPS; null: any of them. */
export const OUTBOUND_IPS_SCHEMA = nullable(
  array(string({ description: 'An IP address of POSTLINE_OUTBOUND_IPS.' }), {
    description: "Postline: the outbound addresses the domain's mail leaves from (of POSTLINE_OUTBOUND_IPS); null: any of them, in turn.",
  }),
);
const MAX_OUTBOUND_IPS = 64;
export const UPDATE_DOMAIN_SCHEMA = input({
  ...SETTINGS_SCHEMA,
  warmup: WARMUP_SETTINGS_SCHEMA,
  outbound_ips: {
    ...OUTBOUND_IPS_SCHEMA,
    minItems: 1,
    maxItems: MAX_OUTBOUND_IPS,
    'x-message': 'be a list of IP addresses, or null',
  },
});

/** `outbound_ips`: IP addresses, among `allowed` when the installation lists any, each once; null unpins; undefined: unchanged. */
export function checkOutboundIps(ips: string[] | null | undefined, allowed: readonly string[]): string[] | null | undefined {
  if (!ips) return ips;
  if (!ips.every((ip) => net.isIP(ip) !== 0)) throw validation('The `outbound_ips` field must be a list of IP addresses, or null.');
  const unknown = ips.find((ip) => allowed.length > 0 && !allowed.includes(ip));
  if (unknown !== undefined) throw validation(`The address ${unknown} is not one of POSTLINE_OUTBOUND_IPS (${allowed.join(', ')}).`);
  return [...new Set(ips)];
}
