// Delay warnings in prose: the remote server accepted the message and keeps trying.
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
];
