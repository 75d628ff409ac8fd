// Bounces and complaints in no standard format (no message/delivery-status or feedback-report
// part), one entry per mail-server family, each known by its tell-tale sender, subject, header
// or phrase (the layouts as sisimai's documentation and the servers' own templates describe
// them). Each entry says which phrases mark a delay (the server keeps trying) and which a
// failure (the delay wording every server shares, bounce-prose.ts DELAY_WORDING, counts for
// each family too, before its failure phrases), and where the recipients stand: a header
// naming them, else the addresses its text names. The reply the remote server gave is read
// from the text after each recipient (bounce-prose.ts). Order matters where families share
// words: indimail and Yahoo before qmail, whose words they reuse; GMX, mail.ru and Zoho before
// Exim, whose templates and words they build on.
import { addressesIn } from './bounce-prose.js';

/** A message at a return path, as the formats look at it. */
export interface ReturnPathMail {
  /** The From header's address, lower-case ('' when none). */
  from: string;
  subject: string;
  /** A top-level header's first value, by lower-case name. */
  header: (name: string) => string | undefined;
  /** A header's first value in the message the report returns (its message/rfc822 part), by lower-case name. */
  returnedHeader: (name: string) => string | undefined;
  /** All of the text, the returned message included. */
  fullText: string;
  /** The server's own words, up to the returned message (bounce-prose.ts ownText). */
  ownText: string;
}

export interface BounceFormat {
  name: string;
  identify: (mail: ReturnPathMail) => boolean;
  /** Phrases (in the subject or the server's words) that say the server keeps trying. */
  delayed?: RegExp;
  /** Phrases that say delivery failed; a message identified but saying neither is left to the next steps. */
  failed?: RegExp;
  /** A complaint format rather than a bounce: identified is enough. */
  complaint?: true;
  /** The recipients when a header names them; otherwise the addresses of the server's words. */
  recipients?: (mail: ReturnPathMail) => string[];
}

const DAEMON = /^(mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;
const daemonAt = (domain: RegExp) => (mail: ReturnPathMail) => DAEMON.test(mail.from) && domain.test(mail.from.split('@')[1] ?? '');
const saying = (phrase: RegExp) => (mail: ReturnPathMail) => phrase.test(mail.fullText);
const anyOf =
  (...tests: ((mail: ReturnPathMail) => boolean)[]) =>
  (mail: ReturnPathMail) =>
    tests.some((test) => test(mail));

/** Exim's X-Failed-Recipients, which Exim-based servers (GMX, mail.ru) also write. */
const failedRecipientsHeader = (mail: ReturnPathMail) => {
  const header = mail.header('x-failed-recipients');
  return header ? addressesIn(header) : addressesIn(mail.ownText);
};

const EXIM_FAILED = /could not be delivered|permanent error|address(\(es\))? failed|delivery failed/i;
const EXIM_DELAYED = /has not yet been delivered|delivery attempts will continue|message .{0,40}delayed/i;

export const BOUNCE_FORMATS: BounceFormat[] = [
  {
    // Hotmail's feedback loop before ARF (JMRP's classic layout, as sisimai's ARF reader takes
    // it): from staff@hotmail.com, "complaint about message from <IP>", multipart/mixed with
    // the complained-about message as a message/rfc822 part, no feedback-report part; the
    // complainer is the X-HmXmrOriginalRecipient header Hotmail stamped on that message (or on
    // the report itself). A bounce from a mailer daemon returning a message Hotmail stamped is
    // no complaint.
    name: 'hotmail-complaint',
    identify: anyOf(
      (mail) => mail.header('x-hmxmroriginalrecipient') !== undefined,
      (mail) => mail.returnedHeader('x-hmxmroriginalrecipient') !== undefined && !DAEMON.test(mail.from),
      (mail) => /^staff@hotmail\.com$/i.test(mail.from) && /^complaint about message from /i.test(mail.subject),
    ),
    complaint: true,
    recipients: (mail) => addressesIn(mail.header('x-hmxmroriginalrecipient') ?? mail.returnedHeader('x-hmxmroriginalrecipient') ?? ''),
  },
  {
    name: 'indimail',
    identify: anyOf(saying(/this is the indimail-send program/i), (mail) => /indimail/i.test(mail.header('x-mailer') ?? '')),
    delayed: /temporary (error|failure)|will (keep|continue) (trying|to try)/i,
    failed: /wasn't able to deliver|permanent error|giving up/i,
  },
  {
    name: 'yahoo',
    identify: anyOf(daemonAt(/(^|\.)yahoo(inc)?\.(com|co\.\w+|\w+)$/i), saying(/sorry, we were unable to deliver your message to the following address/i)),
    delayed: /will (keep|continue) (trying|to try)|temporar(y|ily)/i,
    failed: /unable to deliver|remote host said|permanent/i,
  },
  {
    name: 'qmail',
    identify: saying(/this is the qmail-send program|i'm afraid i wasn't able to deliver your message/i),
    delayed: /this is a temporary error|still trying/i,
    failed: /wasn't able to deliver|permanent error|giving up/i,
  },
  {
    name: 'gmail-legacy',
    identify: anyOf(daemonAt(/(^|\.)(googlemail|gmail|google)\.com$/i), saying(/delivery to the following recipients? (failed permanently|has been delayed)/i)),
    delayed: /has been delayed|will be retried|temporary failure/i,
    failed: /failed permanently|permanent failure/i,
  },
  {
    name: 'gmx',
    identify: anyOf(daemonAt(/(^|\.)(gmx\.(net|de|com|at|ch)|web\.de)$/i), saying(/--- the header of the original message is following\. ---/i)),
    delayed: EXIM_DELAYED,
    failed: EXIM_FAILED,
    recipients: failedRecipientsHeader,
  },
  {
    name: 'mail.ru',
    identify: anyOf(daemonAt(/(^|\.)(mail|inbox|list|bk)\.ru$/i), saying(/не (удалось|было) доставить|не может быть доставлено/i)),
    delayed: /has not yet been delivered|delivery attempts will continue|ещё не доставлено|еще не доставлено/i,
    failed: /could not be delivered|permanent error|не (удалось|было) доставить|не может быть доставлено/i,
    recipients: failedRecipientsHeader,
  },
  {
    name: 'zoho',
    identify: anyOf(daemonAt(/(^|\.)zoho(mail)?\.(com|eu|in)$/i), (mail) => mail.header('x-zohomail') !== undefined),
    delayed: /will (keep|continue) (trying|to try)|temporar(y|ily)|delayed/i,
    failed: /could not be delivered|permanent error|error code/i,
  },
  {
    name: 'exim',
    identify: anyOf((mail) => mail.header('x-failed-recipients') !== undefined, saying(/this message was created automatically by mail delivery software/i)),
    delayed: EXIM_DELAYED,
    failed: EXIM_FAILED,
    recipients: failedRecipientsHeader,
  },
  {
    name: 'postfix',
    identify: saying(/this is the mail system at host|this is the postfix program/i),
    delayed: /this is a warning only|still being retried|delayed mail/i,
    failed: /could not be delivered|returned to sender|undeliverable/i,
  },
  {
    name: 'domino',
    identify: anyOf((mail) => /^delivery (failure|report)/i.test(mail.subject), saying(/was not delivered to:[\s\S]*because:/i)),
    delayed: /delivery delayed|will (be retried|retry)/i,
    failed: /not delivered|delivery failure/i,
  },
];
