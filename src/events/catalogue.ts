// The one catalogue of lifecycle events: every kind Postline records, what it means, and
// what an email's `last_event` becomes. Webhooks, logs and the dashboard read this list.

export const EMAIL_EVENTS = {
  'email.scheduled': { lastEvent: 'scheduled', description: 'Accepted with a future scheduled_at' },
  'email.sent': { lastEvent: 'sent', description: 'Accepted, committed and queued for delivery' },
  'email.delivered': { lastEvent: 'delivered', description: "The recipient's mail server accepted it (2xx)" },
  'email.delivery_delayed': {
    lastEvent: 'delivery_delayed',
    description:
      "A temporary failure (4xx, no connection, a TLS policy not met), or held by a warm-up's daily cap (once per email, when first held); it will be retried. Postline adds `delay.response`, the reply or the reason there was none",
  },
  'email.bounced': { lastEvent: 'bounced', description: "The recipient's mail server refused it permanently (5xx)" },
  'email.complained': { lastEvent: 'complained', description: 'The recipient marked it as spam' },
  'email.failed': {
    lastEvent: 'failed',
    description:
      "Postline gave up: still undelivered after POSTLINE_MAX_QUEUE_AGE of retries (reason max_queue_age_exceeded, with the last reply as Postline's `failed.response`), or its message could not be composed (message_not_composed)",
  },
  'email.suppressed': { lastEvent: 'suppressed', description: 'Not attempted: the recipient is on the suppression list' },
  'email.canceled': { lastEvent: 'canceled', description: 'A scheduled email was canceled before it was sent' },
  'email.opened': { lastEvent: 'opened', description: 'The open-tracking pixel was loaded' },
  'email.clicked': { lastEvent: 'clicked', description: 'A tracked link was followed' },
  'email.received': { lastEvent: null, description: 'Inbound mail arrived for a receiving domain' },
} as const;

export const OTHER_EVENTS = {
  'domain.created': 'A domain was added',
  'domain.updated': 'A domain changed, verification status included',
  'domain.deleted': 'A domain was removed',
  'domain.blocklisted':
    "Postline's addition: a DNS blocklist (POSTLINE_DOMAIN_BLOCKLISTS, POSTLINE_DNSBLS) started listing the domain or an outbound address it sends from; once per listing",
  'domain.unblocklisted': "Postline's addition: a listing of the domain or of an outbound address it sends from ended; once per listing",
  'domain.dmarc_report_received':
    "Postline's addition: a DMARC aggregate report about a domain arrived (at its rua address, dmarc-reports@ its return-path host, or any address of a receiving domain) and was stored, once per report",
  'contact.created': 'A contact was added',
  'contact.updated': 'A contact changed, an unsubscribe included',
  'contact.deleted': 'A contact was removed',
  'contact.topics.updated': "A contact's topic subscriptions were set (the API, the preference page, a create with topics)",
  'suppression.added': 'An address was put on the suppression list (by the API, a hard bounce or a complaint)',
  'suppression.removed': 'An address was taken off the suppression list',
  'topic.created': 'A topic was added',
  'topic.updated': "A topic's name, description or visibility changed",
  'topic.deleted': 'A topic was removed',
  'inbox.created': 'An inbox was created',
  'inbox.updated': "An inbox's name, from name or agent settings changed",
  'inbox.deleted': 'An inbox was deleted',
  'inbox.thread.created': 'A message received or sent from an inbox started a thread',
  'inbox.thread.folder.updated': 'A thread moved to another folder',
  'inbox.thread.assigned': 'A thread was assigned to a teammate, or to another one',
  'inbox.thread.unassigned': "A thread's assignee was removed",
  'inbox.thread.labels.updated': "A thread's labels changed",
  'inbox.email.received': "A received message was filed into an inbox's thread",
  'inbox.email.sent': 'A message was sent from an inbox (a reply, a forward or a draft)',
  'inbox.draft.created': 'A draft was created in an inbox',
  'inbox.draft.updated': 'A draft changed',
  'inbox.draft.sent': 'A draft was sent',
  'inbox.draft.deleted': 'A draft was deleted',
} as const;

export type EmailEventType = keyof typeof EMAIL_EVENTS;
export type EventType = EmailEventType | keyof typeof OTHER_EVENTS;
