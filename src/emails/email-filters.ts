// GET /emails's filters, Postline's additions to Resend's list (which has only limit, after and
// before): each query parameter becomes one condition on `emails`, with its value as a bind
// parameter. A bad value is a 422 naming the parameter, from its schema (checked before the
// handler) or, for what a schema cannot say, from here. Text is matched anywhere in its field,
// any case, through trigram indexes (migrations 0029, 0062).
import { ApiError } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { type JsonSchema, oneOfValues, SINGLE_LINE_TEXT, string } from '../api/schema.js';
import { likeLiteral } from '../db/database.js';
import { LAST_EVENTS } from './email-view.js';

// A date (2026-11-26), or a date and time with an optional zone (2026-11-26T09:00:00Z).
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

const line = (maxLength: number, description: string) =>
  string({ maxLength, pattern: SINGLE_LINE_TEXT, 'x-message': `be one line of text of at most ${maxLength} characters`, description });
const isoTime = (description: string) =>
  string({ pattern: ISO.source, 'x-message': 'be an ISO 8601 date or date-time (2026-11-26 or 2026-11-26T09:00:00Z)', description });

/** The filters (the route's query parameters beside limit, after and before): their schemas are their check. */
export const EMAIL_FILTERS_QUERY: Record<string, JsonSchema> = {
  last_event: oneOfValues(LAST_EVENTS, { description: 'Only emails whose last event is this one.' }),
  from: line(320, 'Only emails whose from address contains this text (any case).'),
  to: line(320, 'Only emails with a recipient (to, cc or bcc) whose address contains this text (any case): a whole address or part of one.'),
  subject: line(998, 'Only emails whose subject contains this text (any case).'),
  tag: line(512, 'Only emails with this tag: `name`, or `name:value` for a tag with that value.'),
  created_after: isoTime('Only emails created at or after this time (ISO 8601, a date or a date and time).'),
  created_before: isoTime('Only emails created before this time (ISO 8601, a date or a date and time).'),
  search: line(
    998,
    "Only emails whose id is this one (the whole id), or whose subject, from address or a recipient's address (to, cc or bcc) contains this text (any case).",
  ),
};

interface EmailFilters {
  /** SQL conditions on `emails`, joined by AND, numbering their parameters from `firstParam`. */
  conditions: string[];
  params: unknown[];
}

const invalid = (name: string, what: string) => new ApiError('invalid_parameter', `The \`${name}\` parameter must be ${what}.`);

/** A substring, ILIKE's wildcards taken literally. */
const containing = (text: string) => `%${likeLiteral(text)}%`;

/** The recipients (to, cc, bcc) as one text, a line each, as emails_recipients_trgm indexes it (0062). */
const RECIPIENTS = 'email_recipients_text(to_addresses, cc, bcc)';

function isoDate(name: string, value: string): Date {
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value.replace(' ', 'T'));
  // The pattern passed it; a day that does not exist (2026-02-31) still fails here.
  if (Number.isNaN(date.getTime())) throw invalid(name, 'an ISO 8601 date or date-time (2026-11-26 or 2026-11-26T09:00:00Z)');
  return date;
}

/** The filters of `query`, checked; parameters numbered after the `taken` ones the caller binds first. */
export function parseEmailFilters(query: Record<string, string | undefined>, taken: number): EmailFilters {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${taken + params.length}`;
  };

  const { last_event: lastEvent, from, subject, to, tag, search } = query;
  if (lastEvent !== undefined) conditions.push(`last_event = ${bind(lastEvent)}`);
  if (from !== undefined) conditions.push(`from_address ILIKE ${bind(containing(from))}`);
  if (subject !== undefined) conditions.push(`subject ILIKE ${bind(containing(subject))}`);
  if (to !== undefined) conditions.push(`${RECIPIENTS} ILIKE ${bind(containing(to.trim()))}`);
  if (search !== undefined) {
    // One bitmap of the three trigram indexes (and the primary key for an id) when the text is
    // rare; the list's walk newest first when it is common (the planner's choice).
    const text = bind(containing(search.trim()));
    const matches = [`subject ILIKE ${text}`, `from_address ILIKE ${text}`, `${RECIPIENTS} ILIKE ${text}`];
    if (isUuid(search.trim())) matches.unshift(`id = ${bind(search.trim())}`);
    conditions.push(`(${matches.join(' OR ')})`);
  }
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
