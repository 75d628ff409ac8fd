// What an email's row holds of its message, and the one place that reads or writes it. The
// columns (`mime`, `unsigned_mime`, `bodies_in_message`, 0002/0019/0020) make three states:
//   to_compose  neither message: composed, tracked and signed at delivery from the row's
//               fields (the API's and broadcasts' emails, compose-deferred.ts);
//   unsigned    an SMTP submission prepared at accept, DKIM-signed at delivery;
//   signed      the bytes as they go on the wire (signed at accept, or stored by the first
//               attempt's outcome so a retry sends the same bytes: the event writer's
//               SentMessage, events/record-events.ts, in its one update of the email).
// Independently, a small SMTP submission keeps its html and text only inside its message
// (`bodies_in_message`), and GET /emails/:id reads them from there (emails/submitted-message.ts).
// Readers ask for a state or a size here rather than testing the nullable columns; writers are
// accept (messageColumns) and the event writer.

export type StoredMessage =
  | { state: 'to_compose' }
  | { state: 'unsigned'; message: Buffer; bodiesInMessage: boolean }
  | { state: 'signed'; message: Buffer; bodiesInMessage: boolean };

export const TO_COMPOSE: StoredMessage = { state: 'to_compose' };

/** The row's columns for a message being accepted. */
export function messageColumns(message: StoredMessage): { mime: Buffer | null; unsignedMime: Buffer | null; bodiesInMessage: boolean } {
  return {
    mime: message.state === 'signed' ? message.message : null,
    unsignedMime: message.state === 'unsigned' ? message.message : null,
    bodiesInMessage: message.state !== 'to_compose' && message.bodiesInMessage,
  };
}

/** The bytes an accepted message adds to the database (group-commit.ts bounds a commit by them). */
export const storedBytes = (message: StoredMessage) => (message.state === 'to_compose' ? 0 : message.message.length);

/**
 * Columns to select (from `emails` as `alias`) for storedMessageOf(): the state, and the bytes
 * only when `withBytes` (the whole message: never for a list or a view).
 */
export function storedMessageColumns(alias: string, withBytes: boolean): string {
  const state = `CASE WHEN ${alias}.mime IS NOT NULL THEN 'signed' WHEN ${alias}.unsigned_mime IS NOT NULL THEN 'unsigned' ELSE 'to_compose' END AS message_state`;
  return withBytes ? `${state}, COALESCE(${alias}.mime, ${alias}.unsigned_mime) AS message, ${alias}.bodies_in_message` : state;
}

/** The columns storedMessageColumns(…, true) selects. */
export interface StoredMessageRow {
  message_state: StoredMessage['state'];
  message: Buffer | null;
  bodies_in_message: boolean;
}

/** The state of a row selected with storedMessageColumns(…, true). */
export function storedMessageOf(row: StoredMessageRow): StoredMessage {
  return row.message_state === 'to_compose' ? TO_COMPOSE : { state: row.message_state, message: row.message!, bodiesInMessage: row.bodies_in_message };
}

/**
 * For a view: `message_state`, and `bodies_message`, the message a small SMTP submission's
 * html and text are read from (at most 64 KB and its signature), null for every other email.
 */
export const VIEW_MESSAGE_COLUMNS = `${storedMessageColumns('emails', false)},
  CASE WHEN bodies_in_message THEN COALESCE(unsigned_mime, mime) END AS bodies_message`;

/**
 * What an email counts for in the delivery claim's byte budget (claim.ts), as SQL over `alias`:
 * its message, or twice its html while it is still to be composed.
 */
export const claimSizeSql = (alias: string) =>
  `COALESCE(octet_length(${alias}.mime), octet_length(${alias}.unsigned_mime), 2 * octet_length(${alias}.html), 0)`;

/** The signed message of an email on the wire, selected by the claim (null until signed). */
export const signedMessageSql = (alias: string) => `${alias}.mime`;
