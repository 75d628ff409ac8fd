// The `data` of every event kind in the catalogue, as webhooks deliver it (resend-compat-notes
// §7.2, the SDK's webhook payload types): recordEvents takes a NewEvent whose `data` must be
// its type's payload, so a writer cannot record a bounce without its `bounce`, or a click
// without its `click`. A kind added to the catalogue without a payload here fails to compile.
import { array, isoTime, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { EmailEventType, EventType } from './catalogue.js';

/** What every event about an outbound email carries. */
export interface EmailEventData {
  email_id: string;
  /** The email's creation; an event written with its email (recordEventsCtes) takes the row's. */
  created_at?: string;
  from: string;
  to: string[];
  subject: string;
  message_id: string;
  /** Only when the email has tags, as an object. */
  tags?: Record<string, string>;
  /** Only when the email came from a broadcast / a template. */
  broadcast_id?: string;
  template_id?: string;
}

interface BounceData {
  type: string;
  subType: string;
  message: string;
  diagnosticCode: string[];
}

interface SuppressedData {
  type: 'OnAccountSuppressionList' | 'Suppressed';
  reason: string;
  message: string;
  diagnosticCode: string[];
}

/** Resend's `click` object, camelCase as on the wire. */
interface ClickData {
  ipAddress: string;
  link: string;
  timestamp: string;
  userAgent: string;
}

export interface ReceivedEventData {
  email_id: string;
  created_at: string;
  from: string;
  to: string[];
  received_for: string[];
  cc: string[];
  bcc: string[];
  message_id: string | null;
  subject: string;
  attachments: { id: string; filename: string | null; content_type: string; content_disposition: string | null; content_id: string | null }[];
}

export interface DomainEventData {
  id: string;
  name: string;
  status: string;
  created_at: string;
  region: string;
  records: object[];
}

/** domain.dmarc_report_received (Postline's addition): the report's totals (dmarc-reports/store-reports.ts). */
interface DmarcReportEventData {
  domain_id: string;
  domain: string;
  report_id: string;
  reporter: string;
  begin: string;
  end: string;
  messages: number;
  passing: number;
}

export interface ContactEventData {
  id: string;
  /** The first segment ('' when none): the SDK's payload type still has audience_id, a string. */
  audience_id: string;
  segment_ids: string[];
  created_at: string;
  updated_at: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
}

/** contact.topics.updated: the contact's address and the choices just set. */
interface ContactTopicsEventData {
  email: string;
  topics: { id: string; subscription: 'opt_in' | 'opt_out' }[];
}

/** What a blocklist said of a domain or of an address it sends from (blocklists/view.ts' check). */
interface BlocklistCheckData {
  kind: 'ip' | 'domain';
  target: string;
  zone: string;
  listed: boolean;
  result: 'listed' | 'not_listed' | 'not_possible' | 'unknown';
  return_codes: string[];
  reason: string | null;
  error: string | null;
  first_listed_at: string | null;
  checked_at: string;
}

/** domain.blocklisted / unblocklisted (Postline's): the listing that began or ended, and the domain's listings after it. */
interface DomainBlocklistEventData {
  id: string;
  name: string;
  blocklist: BlocklistCheckData;
  listings: BlocklistCheckData[];
}

interface SuppressionEventData {
  id: string;
  email: string;
  origin: 'bounce' | 'complaint' | 'manual';
  /** The email whose bounce or complaint added it. */
  source_id: string | null;
  created_at: string;
}

interface TopicEventData {
  id: string;
  name: string;
  description: string | null;
  default_subscription: 'opt_in' | 'opt_out';
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * An object an inbox event embeds (src/inboxes/event-objects.ts: the SDK's inbox, thread
 * summary, email or draft, as the API answers them; the SDK surface test checks their shapes).
 */
type Embedded = Readonly<Record<string, unknown>>;

/** The inbox events' data (the SDK's Inbox*EventData, with their optional embedded objects). */
interface InboxEventData {
  /** system: the mail pipeline (mail received, a thread started); api: a request with an API key; dashboard: a signed-in user's; agent: the inbox agent (a drafted reply). */
  source: 'api' | 'dashboard' | 'system' | 'agent';
  inbox_id: string;
  inbox?: Embedded;
}
interface InboxThreadEventData extends Omit<InboxEventData, 'inbox'> {
  thread_id: string;
  thread?: Embedded;
}
interface InboxThreadEmailEventData extends InboxThreadEventData {
  /** The inbox's message id (GET /inboxes/:inbox/threads/:thread/emails/:email). */
  email_id: string;
  email?: Embedded;
}
type InboxLabel = { id: string; name: string; color: string };
interface InboxDraftEventData extends Omit<InboxEventData, 'inbox'> {
  draft_id: string;
  thread_id?: string;
  thread?: Embedded;
  draft?: Embedded;
}

/** What each outbound email event adds to EmailEventData. */
export interface EmailEventExtras {
  'email.scheduled': Record<string, never>;
  'email.sent': Record<string, never>;
  'email.delivered': Record<string, never>;
  /** Postline: the reply (or the reason there was none) that deferred it. */
  'email.delivery_delayed': { delay?: { response: string } };
  'email.bounced': { bounce: BounceData };
  'email.complained': Record<string, never>;
  /** Postline: `response`, the last reply, when retries ran out (reason max_queue_age_exceeded). */
  'email.failed': { failed: { reason: string; response?: string } };
  'email.suppressed': { suppressed: SuppressedData };
  'email.canceled': Record<string, never>;
  'email.opened': Record<string, never>;
  'email.clicked': { click: ClickData };
}

/**
 * An outbound email event's `data` (EmailEventData with the extras of EmailEventExtras), for the
 * docs of the routes that return it; keep the two in step.
 */
export const EMAIL_EVENT_DATA_SCHEMA = object(
  {
    email_id: uuid(),
    created_at: isoTime(),
    from: string(),
    to: array(string()),
    subject: string(),
    message_id: string(),
    tags: object({}, [], { additionalProperties: string(), description: 'Only when the email has tags.' }),
    broadcast_id: uuid('Only when the email came from a broadcast.'),
    template_id: uuid('Only when the email came from a template.'),
    delay: object({ response: string() }, ['response'], {
      description: "email.delivery_delayed: the reply that deferred it, or why it waits (`451 4.4.5 Held by the sending domain's warm-up: …`).",
    }),
    bounce: object({ type: string(), subType: string(), message: string(), diagnosticCode: array(string()) }, undefined, { description: 'email.bounced.' }),
    failed: object({ reason: string(), response: string() }, ['reason'], { description: 'email.failed.' }),
    suppressed: object(
      { type: oneOfValues(['OnAccountSuppressionList', 'Suppressed']), reason: string(), message: string(), diagnosticCode: array(string()) },
      undefined,
      { description: 'email.suppressed.' },
    ),
    click: object({ ipAddress: string(), link: string(), timestamp: string(), userAgent: string() }, undefined, { description: 'email.clicked.' }),
  },
  ['email_id', 'from', 'to', 'subject', 'message_id'],
);

/** The outbound email event kinds (every email event but email.received). */
export type OutboundEventType = keyof EmailEventExtras;

type OtherPayloads = {
  'email.received': ReceivedEventData;
  'domain.created': DomainEventData;
  'domain.updated': DomainEventData;
  'domain.deleted': DomainEventData;
  'domain.blocklisted': DomainBlocklistEventData;
  'domain.unblocklisted': DomainBlocklistEventData;
  'domain.dmarc_report_received': DmarcReportEventData;
  'contact.created': ContactEventData;
  'contact.updated': ContactEventData;
  'contact.deleted': ContactEventData;
  'contact.topics.updated': ContactTopicsEventData;
  'suppression.added': SuppressionEventData;
  'suppression.removed': SuppressionEventData;
  'topic.created': TopicEventData;
  'topic.updated': TopicEventData;
  'topic.deleted': TopicEventData;
  'inbox.created': InboxEventData;
  'inbox.updated': InboxEventData;
  'inbox.deleted': Omit<InboxEventData, 'inbox'>;
  'inbox.thread.created': InboxThreadEmailEventData;
  'inbox.thread.folder.updated': InboxThreadEventData & { from: string; to: string };
  'inbox.thread.assigned': InboxThreadEventData & { assignee_email: string; assigned_by_email: string | null; previous_assignee_email: string | null };
  'inbox.thread.unassigned': InboxThreadEventData & { previous_assignee_email: string };
  'inbox.thread.labels.updated': InboxThreadEventData & { added: InboxLabel[]; removed: InboxLabel[] };
  'inbox.email.received': InboxThreadEmailEventData;
  'inbox.email.sent': InboxThreadEmailEventData;
  'inbox.draft.created': InboxDraftEventData;
  'inbox.draft.updated': InboxDraftEventData;
  'inbox.draft.sent': InboxThreadEmailEventData & { draft_id: string; draft?: Embedded };
  'inbox.draft.deleted': InboxDraftEventData;
};

export type EventPayloads = { [K in OutboundEventType]: EmailEventData & EmailEventExtras[K] } & OtherPayloads;

// Every kind of the catalogue has its payload, and nothing else does.
const everyKindHasAPayload: Exclude<EventType, keyof EventPayloads> extends never ? true : never = true;
const onlyCatalogueKinds: Exclude<keyof EventPayloads, EventType> extends never ? true : never = true;
const outboundAreEmailEvents: Exclude<OutboundEventType, EmailEventType> extends never ? true : never = true;
void [everyKindHasAPayload, onlyCatalogueKinds, outboundAreEmailEvents];

/** An outbound email event as a writer plans it: its type and what that type adds. */
export type OutboundEvent = { [K in OutboundEventType]: { type: K; extra: EmailEventExtras[K] } }[OutboundEventType];

/** An event to record, its data checked against its type's payload. */
export type NewEvent = {
  [K in EventType]: { accountId: string; type: K; emailId?: string | null; data: EventPayloads[K] };
}[EventType];
