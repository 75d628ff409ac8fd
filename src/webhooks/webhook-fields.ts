// The fields of a webhook endpoint as callers send them (resend-compat-notes §2.10), and its
// signing secret. Event types are the catalogue's: a type Postline never records could never
// be delivered, so subscribing to one is refused rather than accepted and left silent.
import crypto from 'node:crypto';
import { missingField, validation } from '../api/errors.js';
import { array, input, oneOfValues, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import type { Config } from '../config.js';
import type { DnsResolver } from '../dns/resolver.js';
import { DestinationPolicy } from '../egress/destination-policy.js';
import { EMAIL_EVENTS, OTHER_EVENTS } from '../events/catalogue.js';

/** Every type of the catalogue, in its order, with its description (GET /webhooks/event-types). */
export const WEBHOOK_EVENT_TYPES: readonly { type: string; description: string }[] = [
  ...Object.entries(EMAIL_EVENTS).map(([type, e]) => ({ type, description: e.description })),
  ...Object.entries(OTHER_EVENTS).map(([type, description]) => ({ type, description })),
];
const TYPES = WEBHOOK_EVENT_TYPES.map((e) => e.type);
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;

const MAX_ENDPOINT_LENGTH = 2048;

/** Where endpoints may connect to: public addresses, and the private ones the operator allows. */
export function webhookDestinations(config: Pick<Config, 'webhookAllowPrivate'>, dns: DnsResolver): DestinationPolicy {
  return new DestinationPolicy(config.webhookAllowPrivate, (host) => dns.addresses(host));
}

/**
 * An absolute http(s) URL. One whose host is an address (or `localhost`) that `destinations`
 * refuses is refused now; a name is resolved and checked at every attempt (send-webhook.ts).
 */
export function parseEndpoint(body: Body, required: boolean, destinations: DestinationPolicy): string | undefined {
  const value = body.endpoint;
  if (value === undefined || value === null) {
    if (required) throw missingField('endpoint');
    return undefined;
  }
  const invalid = () => validation('The `endpoint` field must be a valid URL starting with http:// or https://.');
  if (typeof value !== 'string' || value.length > MAX_ENDPOINT_LENGTH || /[\s\0]/.test(value)) throw invalid();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw invalid();
  const refused = destinations.literalRefusal(url);
  if (refused) throw validation(`Invalid \`endpoint\`: ${refused.message}.`);
  return value;
}

/** A non-empty list of known event types, each once, in the order given. */
export function parseEvents(body: Body, required: boolean): string[] | undefined {
  const value = body.events;
  if (value === undefined || value === null) {
    if (required) throw missingField('events');
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw validation('The `events` field must be a non-empty array of event types.');
  }
  for (const type of value) {
    if (typeof type !== 'string' || !TYPES.includes(type)) {
      throw validation(`Unknown event type ${JSON.stringify(type)} in \`events\`. Expected any of: ${TYPES.join(', ')}.`);
    }
  }
  return [...new Set(value as string[])];
}

const ENDPOINT_SCHEMA = string({ format: 'uri', maxLength: MAX_ENDPOINT_LENGTH, description: 'An http(s) URL.' });
const EVENTS_SCHEMA = array(oneOfValues(TYPES), { minItems: 1 });
/** The bodies of POST /webhooks and PATCH /webhooks/:id, as parseEndpoint and parseEvents read them. */
export const CREATE_WEBHOOK_SCHEMA = input({ endpoint: ENDPOINT_SCHEMA, events: EVENTS_SCHEMA }, ['endpoint', 'events']);
export const UPDATE_WEBHOOK_SCHEMA = input({ endpoint: ENDPOINT_SCHEMA, events: EVENTS_SCHEMA, status: oneOfValues(WEBHOOK_STATUSES) });

/** `whsec_` + base64 of 24 random bytes, the Svix / Standard Webhooks secret format. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}
