// Delay warnings in prose: the remote server accepted the message and keeps trying. None of
// them is a bounce or suppresses the address, whatever failure words it also has. Each sample
// after the first three follows a real report, named in its `source` comment (addresses,
// hosts and ids changed to the test's own); the wording the recogniser must match is the
// server's, the rest is trimmed.
import { mail, mixed, original, type Sample } from './sample.js';

export const DELAYS: Sample[] = [
  {
    family: 'gmail delay (legacy prose)',
    to: ['slow@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        ['From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>', `To: ${rp}`, 'Subject: Delivery Status Notification (Delay)'],
        [
          'This is an automatically generated Delivery Status Notification',
          '',
          'THIS IS A WARNING MESSAGE ONLY.',
          '',
          'YOU DO NOT NEED TO RESEND YOUR MESSAGE.',
          '',
          'Delivery to the following recipient has been delayed:',
          '',
          `     ${r}`,
          '',
          'Message will be retried for 2 more day(s)',
          '',
          'Technical details of temporary failure:',
          'The error that the other server returned was:',
          '451 4.3.0 Mail server temporarily rejected message.',
          '',
          '----- Original message -----',
          '',
          ...original(r),
        ],
      ),
    expected: { verdict: 'delay', format: 'gmail-legacy', event: 'email.delivery_delayed', status: '4.3.0' },
  },
  {
    family: 'exim delay warning',
    to: ['later@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        [
          'From: Mail Delivery System <Mailer-Daemon@relay.example.org>',
          `To: ${rp}`,
          'Subject: Warning: message 1tXyZa-0003Qb-2k delayed 24 hours',
          `X-Failed-Recipients: ${r}`,
          'Auto-Submitted: auto-replied',
        ],
        [
          'This message was created automatically by mail delivery software.',
          '',
          'A message that you sent has not yet been delivered to one or more of its',
          'recipients after more than 24 hours on the queue on relay.example.org.',
          '',
          'The address to which the message has not yet been delivered is:',
          '',
          `  ${r}`,
          '    host mx.example.net [192.0.2.25]',
          `    Delay reason: SMTP error from remote mail server after RCPT TO:<${r}>:`,
          '    451 4.7.1 Greylisted, please try again later',
          '',
          'No action is required on your part. Delivery attempts will continue for',
          'some time, and this warning may be repeated at intervals if the message',
          'remains undelivered. Eventually the mail delivery software will give up,',
          'and when that happens, the message will be returned to you.',
        ],
      ),
    expected: { verdict: 'delay', format: 'exim', event: 'email.delivery_delayed', status: '4.7.1' },
  },
  {
    family: 'postfix delay warning (DSN off)',
    to: ['queue@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mixed(
        ['From: MAILER-DAEMON@mx.example.net (Mail Delivery System)', `To: ${rp}`, 'Subject: Delayed Mail (still being retried)'],
        [
          'This is the mail system at host mx.example.net.',
          '',
          '####################################################################',
          '# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #',
          '####################################################################',
          '',
          'Your message could not be delivered for more than 4 hour(s).',
          'It will be retried until it is 5 day(s) old.',
          '',
          `<${r}>: host store.example.net[192.0.2.26] said: 450 4.2.0 <${r}>:`,
          '    Recipient address rejected: Greylisted (in reply to RCPT TO command)',
        ],
        r,
      ),
    expected: { verdict: 'delay', format: 'postfix', event: 'email.delivery_delayed', status: '4.2.0' },
  },
  {
    // source: Zoho Mail's delay warning. Layout and wording from the notice quoted in Zoho's
    // community forum (help.zoho.com/portal/en/community/topic/message-from-zoho-to-yahoo-elicits-421-responses:
    // "----- The following addresses had fatal errors -----", a "[Status: Error, Address: <…>,
    // ResponseCode 421, , …]" line, "Message will be retried for 4 more day(s)"); the status
    // line's "Host not reachable" and the headers (mailer-daemon@mail.zoho.com, X-ZohoMail, the
    // "This message was created automatically…" opening) from sisimai's Zoho samples
    // (sisimai/rb-sisimai lib/sisimai/lhost/zoho.rb; set-of-emails/maildir/bsd/email-zoho-01.eml),
    // whose lhost-zoho-04/05 sisimai rates 4.0.947 (expired: temporary, not a hard bounce).
    family: 'zoho delay (ResponseCode 421, will be retried)',
    to: ['unreachable@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mixed(
        ['From: mailer-daemon@mail.zoho.com', `To: ${rp}`, 'Subject: Undelivered Mail Returned to Sender', 'X-ZohoMail: Si CHF_MF_NL SS_10 UW48 UB48 FMWL'],
        [
          'This message was created automatically by mail delivery software.',
          'A message that you sent could not be delivered to one or more of its recipients.',
          '',
          '----- The following addresses had fatal errors -----',
          `[Status: Error, Address: <${r}>, ResponseCode 421, , Host not reachable.]`,
          '',
          'Message will be retried for 4 more day(s)',
        ],
        r,
      ),
    expected: { verdict: 'delay', format: 'zoho', event: 'email.delivery_delayed', status: '4.0.0' },
  },
  {
    // source: Gmail's "Delivery incomplete" notice, its wording as quoted in
    // grokipedia.com/page/Delivery_Incomplete ("There was a temporary problem delivering your
    // message to … Gmail will retry for N more hours. You'll be notified if the delivery fails
    // permanently.") and the reply it quotes for an unreachable server ("The recipient server
    // did not accept our requests to connect.", Gmail's wording, its help page
    // support.google.com/mail/answer/7720); headers as Gmail's legacy notices above.
    family: 'gmail delivery incomplete (will retry)',
    to: ['retry@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        ['From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>', `To: ${rp}`, 'Subject: Delivery Status Notification (Delay)'],
        [
          '** Delivery incomplete **',
          '',
          `There was a temporary problem delivering your message to ${r}. Gmail will retry for 46 more hours. You'll be notified if the delivery fails permanently.`,
          '',
          'The response was:',
          '',
          'The recipient server did not accept our requests to connect. [mx.example.net 192.0.2.25: timed out]',
          '',
          '----- Original message -----',
          '',
          ...original(r),
        ],
      ),
    expected: { verdict: 'delay', format: 'gmail-legacy', event: 'email.delivery_delayed', status: '4.0.0' },
  },
  {
    // source: sendmail's warning with DSNs off, as the University of Maryland's help desk shows
    // it (helpdesk.umd.edu/topics/troubleshooting/email/3024: "Warning: could not send message
    // for past …", "THIS IS A WARNING MESSAGE ONLY", "transient non-fatal errors", "Warning:
    // message still undelivered after 4 hours", "Will keep trying until message is 5 days old").
    family: 'sendmail delay warning (DSN off: still undelivered, will keep trying)',
    to: ['still@example.net'],
    mailFrom: '',
    message: (rp, r) =>
      mail(
        ['From: Mail Delivery Subsystem <MAILER-DAEMON@relay.example.org>', `To: ${rp}`, 'Subject: Warning: could not send message for past 4 hours'],
        [
          '    **********************************************',
          '    **      THIS IS A WARNING MESSAGE ONLY      **',
          '    **  YOU DO NOT NEED TO RESEND YOUR MESSAGE  **',
          '    **********************************************',
          '',
          'The original message was received at Mon, 1 Jan 2024 00:00:00 +0000',
          'from send.sender.test [192.0.2.10]',
          '',
          '   ----- The following addresses had transient non-fatal errors -----',
          `<${r}>`,
          '',
          '   ----- Transcript of session follows -----',
          `<${r}>... Deferred: Connection timed out with mx.example.net.`,
          'Warning: message still undelivered after 4 hours',
          'Will keep trying until message is 5 days old',
        ],
      ),
    expected: { verdict: 'delay', format: 'prose', event: 'email.delivery_delayed', status: '4.0.0' },
  },
  {
    // source: a prose report from a server of no known family, in the layout of the unknown
    // server's failure in permanent-failures.ts, quoting a real temporary reply: Gmail's
    // "452 4.2.2 The email account that you tried to reach is over quota" (as quoted in
    // suped.com's knowledge base, "What does the Gmail error '452 4.2.2 …' mean"). Failure
    // words, no delay words: the 4.x.x status alone makes it a delay.
    family: 'prose with a 4.x.x status and failure words only (unknown server)',
    to: ['overquota@example.net'],
    mailFrom: '',
    message: (rp) =>
      mail(
        ['From: Mail Administrator <postmaster@mail.example.com>', `To: ${rp}`, 'Subject: Undeliverable: Hello'],
        [
          'Your message could not be delivered.',
          '',
          'The remote server answered: 452 4.2.2 The email account that you tried to reach is over quota.',
          '',
          'Original message follows.',
          '',
          'Hello there',
        ],
      ),
    expected: { verdict: 'delay', format: 'prose', event: 'email.delivery_delayed', status: '4.2.2' },
  },
];
