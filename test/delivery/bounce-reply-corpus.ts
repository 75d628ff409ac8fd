// Final SMTP replies as mail servers and providers word them, each with the class Postline
// should give it (src/delivery/bounce-classes.ts) and where the wording was published. Replies
// are quoted as published, with addresses, IPs and session ids replaced by examples.
import type { BounceSubType, BounceType } from '../../src/delivery/bounce-classes.js';

interface CorpusReply {
  reply: string;
  type: BounceType;
  subType: BounceSubType;
  source: string;
}

const GMAIL = 'https://support.google.com/a/answer/3726730 (Gmail SMTP errors and codes)';
const GMAIL_CODES = 'https://smtp.codes/google';
const MICROSOFT_NDR =
  'https://learn.microsoft.com/en-us/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/non-delivery-reports-in-exchange-online';
const MICROSOFT_CODES = 'https://bentonow.com/smtp-errors/microsoft';
const YAHOO_HELP = 'http://help.yahoo.com/l/in/yahoo/mail/original/abuse/abuse-57.html';
const YAHOO_CODES = 'https://smtp.codes/yahoo';
const RFC_3463 = 'https://www.rfc-editor.org/rfc/rfc3463 (enhanced status codes)';
const POSTFIX = 'https://www.postfix.org/postconf.5.html (reject messages of smtpd restrictions)';
const EXIM = 'https://www.exim.org/exim-html-current/doc/html/spec_html/ch-access_control_lists.html';

export const BOUNCE_REPLY_CORPUS: CorpusReply[] = [
  // Gmail / Google Workspace
  {
    reply:
      "550-5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. Learn more at https://support.google.com/mail/?p=NoSuchUser - gsmtp",
    type: 'Permanent',
    subType: 'NoEmail',
    source: GMAIL,
  },
  { reply: '550 5.2.1 The email account that you tried to reach is disabled. - gsmtp', type: 'Permanent', subType: 'General', source: GMAIL },
  {
    reply:
      '552-5.2.2 The email account that you tried to reach is over quota. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm - gsmtp',
    type: 'Transient',
    subType: 'MailboxFull',
    source: GMAIL,
  },
  {
    reply:
      "552-5.3.4 Your message exceeded Google's message size limits. Please visit https://support.google.com/mail/?p=MaxSizeError to view our size guidelines. - gsmtp",
    type: 'Transient',
    subType: 'MessageTooLarge',
    source: GMAIL,
  },
  {
    reply:
      '552 5.7.0 Our system detected an illegal attachment on your message. Please visit http://mail.google.com/support/bin/answer.py?answer=6590 to review our attachment guidelines. - gsmtp',
    type: 'Transient',
    subType: 'AttachmentRejected',
    source: GMAIL,
  },
  {
    reply:
      '552-5.7.0 This message was blocked because its content presents a potential security issue. Please visit https://support.google.com/mail/?p=BlockedMessage to review our message content and attachment content guidelines. - gsmtp',
    type: 'Transient',
    subType: 'ContentRejected',
    source: GMAIL,
  },
  {
    reply:
      '550-5.7.1 [192.0.2.1] Our system has detected that this message is likely unsolicited mail. To reduce the amount of spam sent to Gmail, this message has been blocked. - gsmtp',
    type: 'Transient',
    subType: 'ContentRejected',
    source: GMAIL,
  },
  {
    reply:
      '550-5.7.26 This mail has been blocked because the sender is unauthenticated. Gmail requires all senders to authenticate with either SPF or DKIM. - gsmtp',
    type: 'Transient',
    subType: 'General',
    source: GMAIL,
  },
  {
    reply:
      '550-5.7.25 The IP address sending this message does not have a PTR record setup, or the corresponding forward DNS entry does not point to the sending IP. - gsmtp',
    type: 'Transient',
    subType: 'General',
    source: GMAIL,
  },
  { reply: '550 5.7.1 This message violates example.com email policy. - gcdp <sessionid> - gsmtp', type: 'Transient', subType: 'General', source: GMAIL },
  {
    reply: '550 5.7.24 The SPF record of the sending domain has one or more suspicious entries. For more information, go to Email sender guidelines. - gsmtp',
    type: 'Transient',
    subType: 'General',
    source: GMAIL_CODES,
  },
  {
    reply: '553 5.1.3 The recipient address <user@@example.com> is not a valid RFC 5321 address. - gsmtp',
    type: 'Permanent',
    subType: 'NoEmail',
    source: GMAIL,
  },
  // Microsoft: Outlook.com and Exchange Online
  {
    reply: '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [BN1NAM02FT061.eop-nam02.prod.protection.outlook.com]',
    type: 'Permanent',
    subType: 'NoEmail',
    source: MICROSOFT_CODES,
  },
  {
    reply: '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient user@example.com not found by SMTP address lookup',
    type: 'Permanent',
    subType: 'NoEmail',
    source: MICROSOFT_NDR,
  },
  {
    reply: '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DM6NAM12FT022.eop-nam12.prod.protection.outlook.com]',
    type: 'Permanent',
    subType: 'NoEmail',
    source: MICROSOFT_NDR,
  },
  {
    reply: '554 5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded',
    type: 'Transient',
    subType: 'MailboxFull',
    source: MICROSOFT_NDR,
  },
  {
    reply:
      '550 5.7.606 Access denied, banned sending IP [192.0.2.1]. To request removal from this list please visit https://sender.office.com/ and follow the directions.',
    type: 'Transient',
    subType: 'General',
    source: MICROSOFT_NDR,
  },
  {
    reply:
      "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
    type: 'Transient',
    subType: 'General',
    source: MICROSOFT_CODES,
  },
  { reply: '552 5.3.4 Message size exceeds fixed maximum message size', type: 'Transient', subType: 'MessageTooLarge', source: MICROSOFT_NDR },
  { reply: '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP.', type: 'Transient', subType: 'General', source: MICROSOFT_NDR },
  {
    reply: '550 5.7.509 Access denied, sending domain example.com does not pass DMARC verification and has a DMARC policy of reject.',
    type: 'Transient',
    subType: 'General',
    source: MICROSOFT_NDR,
  },
  { reply: '550 5.2.1 Mailbox cannot be accessed [user@example.com]; Mailbox disabled', type: 'Permanent', subType: 'General', source: MICROSOFT_NDR },
  // Yahoo and AOL
  {
    reply: "554 delivery error: dd This user doesn't have a yahoo.com account (user@yahoo.com) [0] - mta1234.mail.ne1.yahoo.com",
    type: 'Permanent',
    subType: 'NoEmail',
    source: YAHOO_HELP,
  },
  {
    reply: '554 delivery error: dd Sorry, your message to user@yahoo.com cannot be delivered. This account is over quota.',
    type: 'Transient',
    subType: 'MailboxFull',
    source: YAHOO_HELP,
  },
  {
    reply: '554 delivery error: dd Sorry, your message to user@yahoo.com cannot be delivered. This mailbox is disabled (554.30).',
    type: 'Permanent',
    subType: 'General',
    source: YAHOO_CODES,
  },
  {
    reply:
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
    type: 'Transient',
    subType: 'General',
    source: YAHOO_CODES,
  },
  {
    reply: '554 5.7.9 Message not accepted for policy reasons. See https://postmaster.yahooinc.com/error-codes',
    type: 'Transient',
    subType: 'ContentRejected',
    source: YAHOO_CODES,
  },
  { reply: '552 1 Requested mail action aborted, mailbox not found', type: 'Permanent', subType: 'NoEmail', source: YAHOO_CODES },
  // Apple iCloud
  { reply: '550 5.1.1 <user@icloud.com>: user does not exist', type: 'Permanent', subType: 'NoEmail', source: 'https://smtp.codes/apple' },
  { reply: '552 5.2.2 <user@icloud.com>: user is over quota', type: 'Transient', subType: 'MailboxFull', source: 'https://smtp.codes/apple' },
  {
    reply: '554 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137',
    type: 'Transient',
    subType: 'ContentRejected',
    source: 'https://support.apple.com/en-us/102322 (iCloud Mail for senders)',
  },
  // Common servers
  {
    reply: '550 5.1.1 <user@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
    type: 'Permanent',
    subType: 'NoEmail',
    source: POSTFIX,
  },
  {
    reply: '550 5.1.1 <user@example.com>: Recipient address rejected: User unknown in local recipient table',
    type: 'Permanent',
    subType: 'NoEmail',
    source: POSTFIX,
  },
  { reply: '554 5.7.1 <user@example.com>: Relay access denied', type: 'Transient', subType: 'General', source: POSTFIX },
  { reply: '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org', type: 'Transient', subType: 'General', source: POSTFIX },
  { reply: '552 5.3.4 Message size exceeds fixed limit', type: 'Transient', subType: 'MessageTooLarge', source: POSTFIX },
  { reply: '550 Unrouteable address', type: 'Permanent', subType: 'NoEmail', source: EXIM },
  { reply: '550 5.7.1 Message rejected as spam', type: 'Transient', subType: 'ContentRejected', source: EXIM },
  { reply: '550 This message contains a blocked attachment type (.exe)', type: 'Transient', subType: 'AttachmentRejected', source: EXIM },
  { reply: '550 5.7.1 This message contains a virus (Eicar-Signature)', type: 'Transient', subType: 'ContentRejected', source: EXIM },
  {
    reply: '550 No such user here',
    type: 'Permanent',
    subType: 'NoEmail',
    source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.3 (550 mailbox unavailable)',
  },
  // By the enhanced code alone (RFC 3463), when the text says nothing recognisable
  { reply: '550 5.1.6 gone', type: 'Permanent', subType: 'NoEmail', source: RFC_3463 },
  { reply: '550 5.1.2 example.invalid', type: 'Permanent', subType: 'General', source: RFC_3463 },
  { reply: '554 5.6.3 Conversion required but not supported', type: 'Transient', subType: 'ContentRejected', source: RFC_3463 },
  { reply: '550 5.7.0 x', type: 'Transient', subType: 'General', source: RFC_3463 },
  { reply: '554 5.3.0 Other mail system problem', type: 'Permanent', subType: 'General', source: RFC_3463 },
  { reply: '550 Requested action not taken', type: 'Permanent', subType: 'General', source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.3' },
];
