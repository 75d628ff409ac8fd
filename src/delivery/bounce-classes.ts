// Which kind of bounce a final SMTP reply is, in Resend's terms (Amazon SES's, which Resend
// passes on): `type` Permanent, Transient or Undetermined and its `subType`. It decides what a
// sender should do: a Permanent bounce about the address (General, NoEmail) suppresses it; a
// Transient one is about this message or this moment (a full mailbox, a message too large,
// content or an attachment refused, the sending IP or domain blocked) and leaves the address
// alone.
//
// Table-driven, first match wins: the enhanced status codes that say it exactly (RFC 3463),
// then phrases of the reply text as the big providers and common servers word them
// (test/delivery/bounce-reply-corpus.ts holds real replies with their sources), then the
// enhanced code's class, then the reply code's. The order matters where phrases overlap: an
// attachment refused before content refused, a mailbox full before "mailbox", Spamhaus (a block
// of the sender) before "spam" (the content).

export type BounceType = 'Permanent' | 'Transient' | 'Undetermined';
export type BounceSubType = 'General' | 'NoEmail' | 'MailboxFull' | 'MessageTooLarge' | 'ContentRejected' | 'AttachmentRejected' | 'Undetermined';

export interface BounceClass {
  type: BounceType;
  subType: BounceSubType;
}

const NO_EMAIL: BounceClass = { type: 'Permanent', subType: 'NoEmail' };
const PERMANENT: BounceClass = { type: 'Permanent', subType: 'General' };
const MAILBOX_FULL: BounceClass = { type: 'Transient', subType: 'MailboxFull' };
const TOO_LARGE: BounceClass = { type: 'Transient', subType: 'MessageTooLarge' };
const CONTENT: BounceClass = { type: 'Transient', subType: 'ContentRejected' };
const ATTACHMENT: BounceClass = { type: 'Transient', subType: 'AttachmentRejected' };
/** Refused for who sent it (IP or domain blocked, authentication, policy) or for now: the address is fine. */
const TRANSIENT: BounceClass = { type: 'Transient', subType: 'General' };
const UNDETERMINED: BounceClass = { type: 'Undetermined', subType: 'Undetermined' };

/** The sending IP or domain is on a blocklist or has a bad reputation: all mail to that destination will meet it. */
const BLOCKLISTED =
  /black ?list|block ?list|blocked using|spamhaus|spamcop|barracuda|\brbl\b|banned sending ip|reputation|(ip|client host)\b[^.]{0,40}\b(blocked|rejected|blacklisted)/i;

export const isBlocklisted = (reply: string): boolean => BLOCKLISTED.test(reply);

/** Enhanced codes whose meaning is exact, whatever the text says. */
const EXACT_CODES: [RegExp, BounceClass][] = [
  [/^5\.1\.(1|10)$/, NO_EMAIL], // bad destination mailbox; recipient address has null MX / not found (Exchange Online)
  [/^[45]\.2\.2$/, MAILBOX_FULL],
  [/^5\.(3\.4|2\.3)$/, TOO_LARGE], // message too big for system; length exceeds administrative limit
];

/** Phrases, in order: the first whose pattern is found in the reply's text decides. */
const PHRASES: [RegExp, BounceClass][] = [
  [
    /illegal attachment|blocked attachment|attachment (was |is )?(not allowed|rejected|blocked|refused)|attachment type|file (type|extension)s? (is |are )?(not allowed|blocked|prohibited|refused)|prohibited file|\.exe\b|executable/i,
    ATTACHMENT,
  ],
  [
    /mailbox (is |was )?full|over ?quota|quota (exceeded|full)|exceed(s|ed)? (its |the )?(storage|quota)|insufficient (system )?storage|mailbox size limit|out of storage/i,
    MAILBOX_FULL,
  ],
  [/message (size|length) exceeds|size exceeds|too (large|big)|exceeded .*message size|message size limit/i, TOO_LARGE],
  [
    /user (is )?unknown|unknown (user|recipient|mailbox)|no such (user|mailbox|recipient|address)|(account|address|mailbox|user|recipient)\b[^.]{0,40}\b(does not|doesn't|did not) exist|doesn't have an? [\w.-]+ account|recipient not found|recipientnotfound|invalid (recipient|mailbox|address)|mailbox (unavailable|not found)|unrouteable address|address rejected: access denied|not a valid (recipient|mailbox|user)|no mailbox here by that name|not listed in (the )?(domino directory|public (name|address) (&|and) address book)/i,
    NO_EMAIL,
  ],
  [BLOCKLISTED, TRANSIENT],
  [
    /(sender|domain)\b[^.]{0,40}\b(blocked|rejected|blacklisted)|unauthenticated|not authenticated|dmarc|\bspf\b|\bdkim\b|relay (access )?denied|not permitted to relay|access denied/i,
    TRANSIENT,
  ],
  [/spam|unsolicited|content|virus|malware|phish|\burls?\b|suspicious|message (was )?(rejected|refused|blocked)|policy (violation|reasons)/i, CONTENT],
  [/(account|mailbox)\b[^.]{0,40}\b(disabled|suspended|inactive|closed|discontinued)|no longer (active|available)/i, PERMANENT],
];

/** The enhanced code's class when no exact code or phrase decided (RFC 3463 §3). */
const CODE_CLASSES: [RegExp, BounceClass][] = [
  [/^5\.1\.[13456]$/, NO_EMAIL], // the mailbox address itself (5.1.2, the destination system, is not)
  [/^5\.6\.\d+$/, CONTENT], // media: the message's content
  [/^5\.7\.\d+$/, TRANSIENT], // security or policy
  [/^5\.\d+\.\d+$/, PERMANENT],
  [/^4\.\d+\.\d+$/, TRANSIENT],
];

/** The class of a final reply (`code` 4xx or 5xx) with its enhanced code and text. */
export function classifyBounce(reply: { code: number; enhanced: string | undefined; text: string }): BounceClass {
  const { enhanced, text } = reply;
  const find = (table: [RegExp, BounceClass][], value: string) => table.find(([pattern]) => pattern.test(value))?.[1];
  return (
    (enhanced && find(EXACT_CODES, enhanced)) ||
    find(PHRASES, text) ||
    (enhanced && find(CODE_CLASSES, enhanced)) ||
    (reply.code >= 500 && reply.code < 600 ? PERMANENT : reply.code >= 400 && reply.code < 500 ? TRANSIENT : UNDETERMINED)
  );
}
