// The bytes a webhook POSTs: Resend's envelope `{type, created_at, data}` (resend-compat-notes
// §7.2) around the `data` that the outbox stored with the event. created_at is the event's,
// in ISO 8601, so every attempt and replay of a message sends the same body.
interface EventForPayload {
  type: string;
  createdAt: Date | string;
  data: unknown;
}

export function webhookPayload(event: EventForPayload): string {
  return JSON.stringify({ type: event.type, created_at: new Date(event.createdAt).toISOString(), data: event.data });
}
