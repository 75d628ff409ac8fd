// GET /emails's filters, Postline's additions to Resend's list (which has only limit, after and
// before): each query parameter becomes one condition on `emails` (and, for `to`, on its
// deliveries), with its value as a bind parameter. A bad value is a 422 naming the parameter.
import { ApiError } from '../api/errors.js';
import { type JsonSchema, oneOfValues, string } from '../api/schema.js';
import { likeLiteral } from '../db/database.js';
import { LAST_EVENTS } from './email-view.js';

/** The filters' docs (the route's query parameters beside limit, after and before). */
export const EMAIL_FILTERS_QUERY: Record<string, JsonSchema> = {
  last_event: oneOfValues(LAST_EVENTS, { description: 'Only emails whose last event is this one.' }),
  from: string({ maxLength: 320, description: 'Only emails whose from address contains this text (any case).' }),
  to: string({ maxLength: 320, description: 'Only emails with this recipient address (to, cc or bcc; any case).' }),
  subject: string({ maxLength: 998, description: 'Only emails whose subject contains this text (any case).' }),
  tag: string({ maxLength: 512, description: 'Only emails with this tag: `name`, or `name:value` for a tag with that value.' }),
  created_after: string({ description: 'Only emails created at or after this time (ISO 8601, a date or a date and time).' }),
  created_before: string({ description: 'Only emails created before this time (ISO 8601, a date or a date and time).' }),
};

interface EmailFilters {
  /** SQL conditions on `emails`, joined by AND, numbering their parameters from `firstParam`. */
  conditions: string[];
  params: unknown[];
}

const invalid = (name: string, what: string) => new ApiError('invalid_parameter', `The \`${name}\` parameter must be ${what}.`);

/** A substring, ILIKE's wildcards taken literally. */
const containing = (text: string) => `%${likeLiteral(text)}%`;

// A date (2026-11-26), or a date and time with an optional zone (2026-11-26T09:00:00Z).
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

function isoDate(name: string, value: string): Date {
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value.replace(' ', 'T'));
  if (!ISO.test(value) || Number.isNaN(date.getTime())) throw invalid(name, 'an ISO 8601 date or date-time (2026-11-26 or 2026-11-26T09:00:00Z)');
  return date;
}

function text(query: Record<string, string | undefined>, name: string, max: number): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (value.trim() === '' || value.length > max || /[\r\n\0]/.test(value)) throw invalid(name, `one line of text of at most ${max} characters`);
  return value;
}

/** The filters of `query`, checked; parameters numbered after the `taken` ones the caller binds first. */
export function parseEmailFilters(query: Record<string, string | undefined>, taken: number): EmailFilters {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${taken + params.length}`;
  };

  const lastEvent = query.last_event;
  if (lastEvent !== undefined) {
    if (!(LAST_EVENTS as string[]).includes(lastEvent)) throw invalid('last_event', `one of ${LAST_EVENTS.join(', ')}`);
    conditions.push(`last_event = ${bind(lastEvent)}`);
  }
  const from = text(query, 'from', 320);
  if (from !== undefined) conditions.push(`from_address ILIKE ${bind(containing(from))}`);
  const subject = text(query, 'subject', 998);
  if (subject !== undefined) conditions.push(`subject ILIKE ${bind(containing(subject))}`);
  const to = text(query, 'to', 320);
  if (to !== undefined) {
    if (!/^[^\s@]+@[^\s@]+$/.test(to.trim())) throw invalid('to', 'an email address');
    // Every recipient (to, cc, bcc) has a delivery row with the bare address, found by
    // deliveries_recipient (0027); $1 is the account (list-emails.ts binds it first).
    conditions.push(`id IN (SELECT d.email_id FROM deliveries d WHERE d.account_id = $1 AND lower(d.recipient) = lower(${bind(to.trim())}))`);
  }
  const tag = text(query, 'tag', 512);
  if (tag !== undefined) {
    const colon = tag.indexOf(':');
    const wanted = colon < 0 ? { name: tag } : { name: tag.slice(0, colon), value: tag.slice(colon + 1) };
    if (wanted.name === '') throw invalid('tag', '`name` or `name:value`');
    conditions.push(`tags @> ${bind(JSON.stringify([wanted]))}::jsonb`);
  }
  const after = query.created_after === undefined ? undefined : isoDate('created_after', query.created_after);
  const before = query.created_before === undefined ? undefined : isoDate('created_before', query.created_before);
  if (after) conditions.push(`created_at >= ${bind(after)}`);
  if (before) conditions.push(`created_at < ${bind(before)}`);
  return { conditions, params };
}
