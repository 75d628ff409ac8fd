// Auto-replies that reach a return path: vacation and out-of-office notices, challenge-response
// systems, "we received your message" acknowledgements. They are never bounces or complaints.
// RFC 3834 asks responders to mark them (Auto-Submitted: auto-replied) and to send them to the
// return path; many also write X-Autoreply, X-Autorespond or Precedence: auto_reply. Bounces
// carry Auto-Submitted too (Exim, Postfix), so that header alone is a weak sign, asked only after
// the bounce formats and the prose fallback found nothing; an auto-reply's wording (away,
// challenge, acknowledgement) is asked before the prose fallback, as a vacation notice sent
// with a null sender may say its message "was not delivered" (recognise-return-path-mail.ts).
import type { ReturnPathMail } from './bounce-formats.js';

const AUTO_REPLY_SUBJECT =
  /^\s*(auto(matic|matische)?[ -]?(reply|response|antwort)|autoreply|out of (the )?office|abwesenheitsnotiz|vacation|on vacation|away from (my|the) (desk|office)|absence|r[ée]ponse automatique|respuesta autom[aá]tica|automatisch antwoord)\b/i;
const CHALLENGE =
  /verify (that )?you are (a )?(human|real person)|confirm (that )?you (are|sent)|(approved|authorized) senders? list|challenge[- ]response|whitelist/i;
const ACKNOWLEDGEMENT =
  /we('ve| have)? received your (message|e-?mail|request|enquiry|inquiry)|thank(s| you) for (your (message|e-?mail)|contacting)|this is an automate?d? (response|reply|message)/i;
const AWAY = /i am (currently )?(out of (the )?office|away|on (vacation|holiday|leave))|i will be (out of (the )?office|away)|limited access to (my )?e-?mail/i;

/** Why the message is an auto-reply by a sign no bounce carries; null when it has none. */
export function strongAutoReplySign(mail: ReturnPathMail): string | null {
  if (mail.header('x-autoreply') !== undefined) return 'an auto-reply (X-Autoreply)';
  if (mail.header('x-autorespond') !== undefined) return 'an auto-reply (X-Autorespond)';
  if (/auto_reply/i.test(mail.header('precedence') ?? '')) return 'an auto-reply (Precedence: auto_reply)';
  if (AUTO_REPLY_SUBJECT.test(mail.subject)) return `an auto-reply (subject "${mail.subject.slice(0, 80)}")`;
  if (CHALLENGE.test(mail.subject)) return 'a challenge-response request';
  return null;
}

/** Why the message is an auto-reply by its wording (away, challenge, acknowledgement); null otherwise. Asked before the prose fallback. */
export function autoReplyWording(mail: ReturnPathMail): string | null {
  if (CHALLENGE.test(mail.ownText)) return 'a challenge-response request';
  if (AWAY.test(mail.ownText)) return 'an out-of-office answer';
  if (ACKNOWLEDGEMENT.test(mail.ownText)) return 'an acknowledgement ("we received your message")';
  return null;
}

/** RFC 3834's Auto-Submitted (other than `no`): a weak sign, as bounces carry it too; asked last. */
export function autoSubmitted(mail: ReturnPathMail): string | null {
  const value = mail.header('auto-submitted')?.toLowerCase().split(/[;\s]/)[0];
  return value && value !== 'no' ? `an automatic answer (Auto-Submitted: ${value})` : null;
}
