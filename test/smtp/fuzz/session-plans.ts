// What the SMTP fuzzer sends, as fast-check arbitraries: a round is a few sessions run side by
// side, each on one of the two port kinds, set up (or not) with TLS and AUTH, then a list of
// actions: command lines (valid and invalid verbs, odd parameters, NUL, 8-bit, bare CR/LF,
// over-long), pipelined groups, raw bytes, whole transactions, messages with odd dot-stuffing
// and missing or malformed terminators, AUTH with garbage base64, STARTTLS at any point, and
// an abrupt disconnect or a wait for the server's timeout at the end.
import fc from 'fast-check';

export type Action =
  /** Bytes written as they are (lines, pipelined groups, a message), in `pieces` writes; latin1, so that a counterexample prints readably. */
  | { kind: 'send'; bytes: string; pieces: number }
  /** `STARTTLS`, and the TLS handshake if it is accepted. */
  | { kind: 'starttls' };

export interface SessionPlan {
  port: 'starttls' | 'implicit';
  /** Set up with well-formed steps before the actions: greeting only, EHLO, TLS (+ EHLO), TLS and AUTH. */
  start: 'greeting' | 'ehlo' | 'tls' | 'auth';
  actions: Action[];
  /** QUIT, drop the connection (no QUIT), or say nothing until the server's idle or data timeout. */
  end: 'quit' | 'drop' | 'wait-for-timeout';
}

interface PlanContext {
  apiKey: string;
  /** Whether a run may wait for the server's timeout (seconds each). */
  timeouts: boolean;
  /** The largest message body to send, KB (bulk lines are added up to it). */
  largestKb: number;
}

const SENDER = 'hello@sender.test';
const ENVELOPE_ADDRESSES = [
  SENDER,
  'alice@example.net',
  'bob@example.net',
  'support@inbox.test',
  'postmaster',
  'postmaster@mta.postline.test',
  '',
  'bounces+00000000-0000-4000-8000-000000000000@send.sender.test',
  'someone@elsewhere.test',
  'ünï@example.net',
  'a@b',
  '"quoted local"@example.net',
  '@route.test:carol@example.net',
  `${'l'.repeat(300)}@example.net`,
  'no-at-sign',
  'x@[127.0.0.1]',
];
const MAIL_PARAMETERS = [
  'SIZE=1000',
  'SIZE=99999999999',
  'SIZE=abc',
  'SIZE=',
  'BODY=8BITMIME',
  'BODY=BINARYMIME',
  'BODY=7BIT',
  'BODY=',
  'SMTPUTF8',
  'RET=FULL',
  'RET=BOGUS',
  'ENVID=abc',
  'AUTH=<>',
  'X-UNKNOWN=1',
  '=',
  'SIZE=10 SIZE=20',
];
const RCPT_PARAMETERS = ['NOTIFY=NEVER', 'NOTIFY=SUCCESS,FAILURE', 'NOTIFY=BOGUS', 'NOTIFY=NEVER,SUCCESS', 'ORCPT=rfc822;x@example.net', 'ORCPT=', 'X=Y'];
const OTHER_COMMANDS = [
  'EHLO client.test',
  'HELO client.test',
  'EHLO',
  'HELO',
  'EHLO [127.0.0.1]',
  'EHLO bad_host!name',
  'RSET',
  'RSET now',
  'NOOP',
  'NOOP with words',
  'VRFY alice',
  'VRFY',
  'HELP',
  'EXPN list',
  'DATA',
  'DATA now',
  'BDAT 10 LAST',
  'TURN',
  'ETRN example.net',
  'XCLIENT ADDR=10.0.0.1',
  'XFORWARD NAME=x',
  'GET / HTTP/1.1',
  'WIZ',
  'SHELL',
  'KILL',
  '',
  ' ',
  'MAIL',
  'RCPT',
  'MAIL TO:<alice@example.net>',
];

const b64 = (text: string) => Buffer.from(text).toString('base64');
const pick = <T>(values: readonly T[]) => fc.constantFrom(...values);

function envelopeLine(verb: 'MAIL FROM:' | 'RCPT TO:', parameters: readonly string[]) {
  return fc
    .tuple(pick(ENVELOPE_ADDRESSES), fc.subarray([...parameters], { maxLength: 2 }), fc.constantFrom('<>', 'bare', 'space'))
    .map(([address, params, form]) => {
      const path = form === 'bare' ? address : `${form === 'space' ? ' ' : ''}<${address}>`;
      return [`${verb}${path}`, ...params].join(' ');
    });
}

function authLines(apiKey: string) {
  const garbage = fc.oneof(fc.base64String({ maxLength: 60 }), fc.string({ maxLength: 40 }), pick(['=', '*', '!!!', '====', 'AAAA====']));
  return fc.oneof(
    fc.constant([`AUTH PLAIN ${b64(`\0resend\0${apiKey}`)}`]),
    fc.constant([`AUTH PLAIN ${b64('\0resend\0re_wrong_key')}`]),
    fc.constant(['AUTH PLAIN', b64(`\0resend\0${apiKey}`)]),
    fc.constant(['AUTH LOGIN', b64('resend'), b64(apiKey)]),
    garbage.map((g) => [`AUTH PLAIN ${g}`]),
    garbage.map((g) => ['AUTH PLAIN', g]),
    garbage.map((g) => ['AUTH LOGIN', g, g]),
    garbage.map((g) => [`AUTH ${g}`]),
    pick([['AUTH'], ['AUTH CRAM-MD5'], ['AUTH XOAUTH2 dXNlcj0='], ['AUTH PLAIN', '*'], ['AUTH LOGIN', '*']]),
  );
}

/** A line made odd: NUL, 8-bit, bare CR, padding up to and past the length limits, case. */
function decorated(line: string) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(Buffer.from(line, 'latin1')) },
    fc.constant(Buffer.from(line.toLowerCase(), 'latin1')),
    fc.nat(line.length).map((at) => Buffer.from(`${line.slice(0, at)}\0${line.slice(at)}`, 'latin1')),
    fc.uint8Array({ minLength: 1, maxLength: 8, min: 0x80, max: 0xff }).map((high) => Buffer.concat([Buffer.from(`${line} `), high])),
    fc.nat(line.length).map((at) => Buffer.from(`${line.slice(0, at)}\r${line.slice(at)}`, 'latin1')),
    fc.constantFrom(999, 1100, 17_000).map((length) => Buffer.from(`${line} ${'x'.repeat(length)}`, 'latin1')),
  );
}

const terminator = fc.oneof({ weight: 8, arbitrary: fc.constant('\r\n') }, fc.constant('\n'), fc.constant('\r\r\n'));

function commandLine(apiKey: string): fc.Arbitrary<Buffer> {
  const line = fc.oneof(
    envelopeLine('MAIL FROM:', MAIL_PARAMETERS),
    envelopeLine('RCPT TO:', RCPT_PARAMETERS),
    pick(OTHER_COMMANDS),
    fc.string({ maxLength: 30 }),
  );
  const lines = fc.oneof({ weight: 5, arbitrary: line.map((l) => [l]) }, authLines(apiKey));
  return fc
    .tuple(
      lines.chain((ls) => fc.tuple(...ls.map(decorated))),
      terminator,
    )
    .map(([ls, end]) => Buffer.concat(ls.flatMap((l) => [l, Buffer.from(end)])));
}

const HEADER_SETS = [
  'From: Sender <hello@sender.test>\r\nTo: alice@example.net\r\nSubject: Fuzz\r\n',
  'From: hello@sender.test\r\nSubject: =?utf-8?B?w7w=?=\r\nContent-Type: text/plain; charset=utf-8\r\n',
  'From: Sender <hello@sender.test>\r\nResend-Idempotency-Key: fuzz-1\r\nSubject: Keyed\r\n',
  'From: Sender <hello@sender.test>\r\nContent-Type: multipart/mixed; boundary=b\r\n',
  'Subject: no From\r\n',
  'From: someone@unverified.test\r\n',
  'From: a@sender.test\r\nFrom: b@sender.test\r\n',
  'From: not an address\r\n',
  'From: Sender <hello@sender.test>\r\nX-Nul: a\0b\r\n',
  'From: Sender <hello@sender.test>\r\n folded-without-header\r\n',
  '',
];
const BODY_LINES = ['Hello', '.', '..', '.hidden', '. space', '', '--b', '--b--', 'Content-Type: text/html', 'x'.repeat(999), '\0', 'Grüße', '\r', 'a\rb'];

/** A message body, dot-stuffed or not, with lines joined by CRLF or bare LF, sometimes large. */
function messageBytes(largestKb: number): fc.Arbitrary<Buffer> {
  const bodyLine = fc.oneof({ weight: 4, arbitrary: pick(BODY_LINES) }, fc.string({ maxLength: 80, unit: 'binary' }));
  return fc
    .record({
      headers: fc.oneof({ weight: 3, arbitrary: pick(HEADER_SETS.slice(0, 3)) }, pick(HEADER_SETS)),
      lines: fc.array(bodyLine, { maxLength: 12 }),
      stuffed: fc.boolean(),
      joiner: fc.oneof({ weight: 4, arbitrary: fc.constant('\r\n') }, fc.constant('\n')),
      bulkKb: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, fc.constantFrom(64, Math.min(700, largestKb), largestKb)),
      ending: fc.oneof(
        { weight: 8, arbitrary: fc.constant('\r\n.\r\n') },
        fc.constantFrom('.\r\n', '\r\n.\n', '\n.\n', '\r\n.', '', '\r\n.\r\nNOOP\r\nRSET\r\n', '\r\n..\r\n'),
      ),
    })
    .map(({ headers, lines, stuffed, joiner, bulkKb, ending }) => {
      const body = (stuffed ? lines.map((l) => (l.startsWith('.') ? `.${l}` : l)) : lines).join(joiner);
      const bulk = bulkKb ? `${'b'.repeat(76)}\r\n`.repeat(Math.ceil((bulkKb * 1024) / 78)) : '';
      return Buffer.from(`${headers}\r\n${bulk}${body}${ending}`, 'latin1');
    });
}

/** MAIL, one to three RCPTs, DATA, a message: in one write (pipelined) or a line at a time. */
function transaction(largestKb: number): fc.Arbitrary<Action[]> {
  const recipient = pick(['alice@example.net', 'bob@example.net', 'carol@example.net', 'support@inbox.test', 'postmaster']);
  return fc
    .record({ recipients: fc.uniqueArray(recipient, { minLength: 1, maxLength: 3 }), message: messageBytes(largestKb), pipelined: fc.boolean() })
    .map(({ recipients, message, pipelined }) => {
      const lines = [`MAIL FROM:<${SENDER}>`, ...recipients.map((r) => `RCPT TO:<${r}>`), 'DATA'].map((l) => Buffer.from(`${l}\r\n`));
      const parts = [...lines, message];
      return pipelined ? [send(Buffer.concat(parts))] : parts.map((p) => send(p));
    });
}

const send = (bytes: Buffer, pieces = 1): Action => ({ kind: 'send', bytes: bytes.toString('latin1'), pieces });

function actions({ apiKey, largestKb }: PlanContext): fc.Arbitrary<Action[]> {
  const single = fc.oneof(
    { weight: 8, arbitrary: commandLine(apiKey).map((b) => [send(b)]) },
    { weight: 3, arbitrary: fc.array(commandLine(apiKey), { minLength: 2, maxLength: 8 }).map((bs) => [send(Buffer.concat(bs))]) },
    { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 1, max: 5 })).map(([b, pieces]) => [send(Buffer.from(b), pieces)]) },
    { weight: 6, arbitrary: transaction(largestKb) },
    { weight: 2, arbitrary: fc.tuple(messageBytes(largestKb), fc.integer({ min: 1, max: 4 })).map(([m, pieces]) => [send(m, pieces)]) },
    { weight: 1, arbitrary: fc.constant([{ kind: 'starttls' } as const]) },
  );
  return fc.array(single, { maxLength: 8 }).map((groups) => groups.flat());
}

function sessionPlan(context: PlanContext): fc.Arbitrary<SessionPlan> {
  const ends = context.timeouts
    ? fc.oneof({ weight: 12, arbitrary: fc.constantFrom('quit', 'drop') }, fc.constant('wait-for-timeout'))
    : fc.constantFrom('quit', 'drop');
  return fc
    .record({
      port: fc.constantFrom('starttls', 'implicit'),
      start: fc.constantFrom('greeting', 'ehlo', 'tls', 'auth'),
      actions: actions(context),
      end: ends,
    })
    .map((plan) => plan as SessionPlan);
}

/** Sessions run side by side. */
export function round(context: PlanContext): fc.Arbitrary<SessionPlan[]> {
  return fc.array(sessionPlan(context), { minLength: 1, maxLength: 3 });
}
