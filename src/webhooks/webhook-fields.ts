// The fields of a webhook endpoint as callers send them (resend-compat-notes §2.10), and its
// signing secret. Event types are the catalogue's: a type Postline never records could never
// be delivered, so subscribing to one is refused rather than accepted and left silent.
import crypto from 'node:crypto';
import { validation } from '../api/errors.js';
import { array, input, oneOfValues, string } from '../api/schema.js';
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

/** The body of POST /webhooks and PATCH /webhooks/:id once it passed its schema (request-schema.ts). */
export interface WebhookFields {
  endpoint?: string;
  events?: string[];
  status?: (typeof WEBHOOK_STATUSES)[number];
}

const ENDPOINT_MESSAGE = 'be a valid URL starting with http:// or https://';
const ENDPOINT_SCHEMA = string({ format: 'uri', maxLength: MAX_ENDPOINT_LENGTH, 'x-message': ENDPOINT_MESSAGE, description: 'An http(s) URL.' });
const EVENTS_SCHEMA = array(oneOfValues(TYPES, { 'x-message': 'be a known event type (GET /webhooks/event-types)' }), { minItems: 1 });
export const CREATE_WEBHOOK_SCHEMA = input({ endpoint: ENDPOINT_SCHEMA, events: EVENTS_SCHEMA }, ['endpoint', 'events']);
export const UPDATE_WEBHOOK_SCHEMA = input({ endpoint: ENDPOINT_SCHEMA, events: EVENTS_SCHEMA, status: oneOfValues(WEBHOOK_STATUSES) });

/**
 * An endpoint as stored: an absolute http(s) URL with a host. One whose host is an address (or
 * `localhost`) that `destinations` refuses is refused now; a name is resolved and checked at
 * every attempt (send-webhook.ts).
 */
export function checkEndpoint(endpoint: string, destinations: DestinationPolicy): string {
  let url: URL | undefined;
  try {
    if (!/[\s\0]/.test(endpoint)) url = new URL(endpoint);
  } catch {}
  if (!url?.hostname || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw validation(`The \`endpoint\` field must ${ENDPOINT_MESSAGE}.`);
  const refused = destinations.literalRefusal(url);
  if (refused) throw validation(`Invalid \`endpoint\`: ${refused.message}.`);
  return endpoint;
}

/** Each event type once, in the order given. */
export const distinctEvents = (events: string[]): string[] => [...new Set(events)];

/** `whsec_` + base64 of 24 random bytes, the Svix / Standard Webhooks secret format. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}
