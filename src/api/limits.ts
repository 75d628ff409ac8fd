// The limits of Resend's contract, in one place: every ingress (the API, SMTP submission,
// broadcasts) holds mail to the same numbers, and error messages quote them from here.

/** The largest email: content and attachments after base64 encoding; SMTP announces it in EHLO SIZE (resend-compat-notes §9, §10). */
export const MAX_EMAIL_BYTES = 40 * 1024 * 1024;
/** Human wording of MAX_EMAIL_BYTES for error messages. */
export const MAX_EMAIL_SIZE = '40 MB';

/** Addresses in one of `to`, `cc`, `bcc` (and RCPT TO per submitted message). */
export const MAX_RECIPIENTS = 50;

/** Emails in one `POST /emails/batch`. */
export const MAX_BATCH_EMAILS = 100;

/** How far ahead `scheduled_at` may be. */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_SCHEDULE_AHEAD = '30 days';
