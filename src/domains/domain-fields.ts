// Validation of the fields POST and PATCH /domains share.
import net from 'node:net';
import { ApiError, validation } from '../api/errors.js';
import { array, boolean, input, type JsonSchema, nullable, oneOfValues, string } from '../api/schema.js';
import { WARMUP_SETTINGS_SCHEMA } from '../warmup/warmup-settings.js';
import { optionalBoolean, optionalEnum, optionalString, rejectUnknown, type Body } from '../api/validate.js';

export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
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

export function parseLabel(body: Body, field: string): string | undefined {
  const value = optionalString(body, field, { max: 63 });
  if (value !== undefined && !LABEL.test(value.toLowerCase())) throw validation(`The \`${field}\` field must be a single DNS label.`);
  return value?.toLowerCase();
}

export interface DomainSettings {
  openTracking?: boolean;
  clickTracking?: boolean;
  tls?: 'opportunistic' | 'enforced';
  sending?: boolean;
  receiving?: boolean;
  trackingSubdomain?: string;
}

export function parseSettings(body: Body): DomainSettings {
  const settings: DomainSettings = {
    openTracking: optionalBoolean(body, 'open_tracking'),
    clickTracking: optionalBoolean(body, 'click_tracking'),
    tls: optionalEnum(body, 'tls', ['opportunistic', 'enforced'] as const),
    trackingSubdomain: parseLabel(body, 'tracking_subdomain'),
  };
  const caps = body.capabilities;
  if (caps !== undefined && caps !== null) {
    if (typeof caps !== 'object' || Array.isArray(caps)) throw validation('The `capabilities` field must be an object.');
    const c = caps as Body;
    rejectUnknown(c, ['sending', 'receiving'], 'capabilities.');
    const state = (field: string) =>
      optionalEnum(c, field, ['enabled', 'disabled'] as const, validation(`The \`capabilities.${field}\` field must be "enabled" or "disabled".`));
    const sending = state('sending');
    const receiving = state('receiving');
    if (sending) settings.sending = sending === 'enabled';
    if (receiving) settings.receiving = receiving === 'enabled';
  }
  return settings;
}

/** LABEL, case-insensitive, as a JSON Schema pattern (without look-arounds). */
const LABEL_SCHEMA = string({ maxLength: 63, pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$' });
const SETTINGS_SCHEMA: Record<string, JsonSchema> = {
  open_tracking: boolean(),
  click_tracking: boolean(),
  tls: oneOfValues(['opportunistic', 'enforced'], { description: 'enforced: never deliver without TLS.' }),
  capabilities: input({ sending: oneOfValues(['enabled', 'disabled']), receiving: oneOfValues(['enabled', 'disabled']) }),
  tracking_subdomain: LABEL_SCHEMA,
};

/** The bodies of POST /domains and PATCH /domains/:id, as parseDomainName, parseLabel and parseSettings read them. */
export const CREATE_DOMAIN_SCHEMA = input(
  {
    name: string({ format: 'hostname', maxLength: 253, description: 'A domain name of at least two labels.' }),
    region: oneOfValues(REGIONS, { default: 'us-east-1' }),
    custom_return_path: { ...LABEL_SCHEMA, default: 'send' },
    ...SETTINGS_SCHEMA,
  },
  ['name'],
);
/** Postline: a domain's pin to some of POSTLINE_OUTBOUND_IPS; null: any of them. */
export const OUTBOUND_IPS_SCHEMA = nullable(
  array(string({ description: 'An IP address of POSTLINE_OUTBOUND_IPS.' }), {
    description: "Postline: the outbound addresses the domain's mail leaves from (of POSTLINE_OUTBOUND_IPS); null: any of them, in turn.",
  }),
);
export const UPDATE_DOMAIN_SCHEMA = input({ ...SETTINGS_SCHEMA, warmup: WARMUP_SETTINGS_SCHEMA, outbound_ips: OUTBOUND_IPS_SCHEMA });

/** `outbound_ips`: IP addresses, among `allowed` when the installation lists any; null unpins; undefined: unchanged. */
export function parseOutboundIps(raw: unknown, allowed: readonly string[]): string[] | null | undefined {
  if (raw === undefined || raw === null) return raw as null | undefined;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 64 || !raw.every((ip) => typeof ip === 'string' && net.isIP(ip) !== 0)) {
    throw validation('The `outbound_ips` field must be a list of IP addresses, or null.');
  }
  const unknown = raw.find((ip) => allowed.length > 0 && !allowed.includes(ip));
  if (unknown !== undefined) throw validation(`The address ${unknown} is not one of POSTLINE_OUTBOUND_IPS (${allowed.join(', ')}).`);
  return [...new Set(raw as string[])];
}

export const invalidRegion = () => new ApiError('invalid_region', `Region must be ${REGIONS.map((r) => `"${r}"`).join(' | ')}`);
