// The fuzzer's judgement of each reply: its syntax (RFC 5321 §4.2: a three-digit code, `-`
// on every line but the last, printable US-ASCII text; RFC 2034: an enhanced code of the
// reply's own class), and whether the code fits what it answers, given what the session
// has been told so far (greeted, TLS, authenticated, a transaction open).
import type { Unit } from './server-mirror.js';

export interface Reply {
  code: number;
  /** The text of each line, after the code and its separator. */
  lines: string[];
}

/** RFC 5321 §4.2: Reply-line = Reply-code [ SP textstring ] CRLF, textstring = 1*(%d09 / %d32-126). */
const REPLY_LINE = /^([2-5]\d\d)(?:([ -])([\t\x20-\x7e]*))?$/;
/** A line that is a reply line but for its text: still counted, so that later replies stay matched to their commands. */
const LOOSE_REPLY_LINE = /^(\d\d\d)(?:([ -])(.*))?$/s;

/** Splits what the server sent into replies, reporting lines that break the syntax. */
export class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private code: number | undefined;
  readonly malformed: string[] = [];

  push(chunk: Buffer): Reply[] {
    this.buffer += chunk.toString('latin1');
    const replies: Reply[] = [];
    for (let end = this.buffer.indexOf('\r\n'); end >= 0; end = this.buffer.indexOf('\r\n')) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      if (!REPLY_LINE.test(line)) this.malformed.push(line);
      const match = LOOSE_REPLY_LINE.exec(line);
      if (!match) continue;
      const code = Number(match[1]);
      if (this.code !== undefined && code !== this.code) this.malformed.push(`${line} (continues a ${this.code} reply)`);
      this.code = code;
      this.lines.push(match[3] ?? '');
      if (match[2] === '-') continue;
      replies.push({ code, lines: this.lines });
      this.lines = [];
      this.code = undefined;
    }
    return replies;
  }

  /** Bytes after the last CRLF: a reply cut off when the connection ended. */
  get leftover(): string {
    return this.buffer;
  }
}

/** What the session was told so far. */
export interface SessionFacts {
  secure: boolean;
  greeted: boolean;
  authenticated: boolean;
  mail: boolean;
  /** Recipients accepted in the open transaction. */
  recipients: string[];
  /** The AUTH exchange under way carried the right credentials. */
  rightCredentials: boolean;
}

export interface CheckContext {
  /** The API key: an AUTH exchange without it (base64, in any line) must not succeed. */
  apiKey: string;
  /** Whether an unauthenticated client may send to this envelope address (inbound mail). */
  receives(address: string): boolean;
}

interface Verdict {
  /** Why the reply is wrong, if it is. */
  problem?: string;
  /** A message the server took: its recipients, and the id of a submission. */
  accepted?: { recipients: string[]; emailId?: string; inbound: boolean };
}

const ENHANCED = /^([245])\.\d{1,3}\.\d{1,3}(?: |$)/;
const QUEUED = /^2\.0\.0 Ok: queued as ([0-9a-f-]{36})/;

const is = (code: number, ...allowed: (number | '2xx' | '4xx' | '5xx')[]) =>
  allowed.some((a) => (typeof a === 'number' ? a === code : Math.floor(code / 100) === Number(a[0])));

function resetTransaction(facts: SessionFacts): void {
  facts.mail = false;
  facts.recipients = [];
}

/** The address of `MAIL FROM:<…>` / `RCPT TO:<…>`, lower-cased, or undefined when there is none in brackets. */
function envelopeAddress(line: Buffer): string | undefined {
  return /<([^>]*)>/.exec(line.toString('latin1'))?.[1]?.toLowerCase();
}

/** Judges `reply` to `unit` (undefined: nothing was owed) and updates `facts` by it. */
export function checkReply(unit: Unit | undefined, reply: Reply, facts: SessionFacts, context: CheckContext): Verdict {
  const text = reply.lines.join(' / ');
  const shown = `${reply.code} ${text}`;
  const enhanced = ENHANCED.exec(reply.lines[0] ?? '');
  if (enhanced && enhanced[1] !== String(reply.code)[0]) return { problem: `enhanced code of another class: ${shown}` };
  if (!unit) return reply.code === 421 ? {} : { problem: `a reply to nothing: ${shown}` };
  const verdict = fits(unit, reply, facts, context);
  // Postline's answer to an error it did not expect (replies.ts temporaryFailure): with its
  // database up, as while fuzzing, that is a bug the input found.
  if (reply.lines[0]?.startsWith('4.3.0 Temporary local problem')) return { problem: `an unexpected error inside Postline: ${shown}` };
  return verdict;
}

function fits(unit: Unit, reply: Reply, facts: SessionFacts, context: CheckContext): Verdict {
  const shown = `${reply.code} ${reply.lines.join(' / ')}`;
  if (reply.code === 421) return {};
  const wrong = (why: string): Verdict => ({ problem: `${why}: ${shown}` });
  const code = reply.code;

  if (unit.kind === 'data-end') {
    const recipients = facts.recipients;
    resetTransaction(facts);
    if (!is(code, 250, '4xx', '5xx')) return wrong('the end of a message answered neither 250 nor 4xx/5xx');
    if (code !== 250) return {};
    const id = QUEUED.exec(reply.lines[0]!)?.[1];
    if (facts.authenticated && !id) return wrong('a submission accepted without its email id');
    if (!facts.authenticated && reply.lines[0] !== '2.0.0 Ok: received') return wrong('inbound mail accepted with another text');
    return { accepted: { recipients, emailId: id, inbound: !facts.authenticated } };
  }

  if (unit.kind === 'auth-response') return authReply(unit.line, code, facts, context, wrong);

  switch (unit.verb) {
    case 'EHLO':
    case 'HELO':
      if (!is(code, 250, '5xx')) return wrong(`${unit.verb} answered neither 250 nor 5xx`);
      if (code === 250) {
        facts.greeted = true;
        resetTransaction(facts);
      }
      return {};
    case 'MAIL':
      if (!is(code, 250, '4xx', '5xx')) return wrong('MAIL answered neither 250 nor 4xx/5xx');
      if (code === 250) {
        if (!facts.greeted || facts.mail) return wrong(`MAIL accepted ${facts.mail ? 'inside a transaction' : 'before EHLO'}`);
        facts.mail = true;
        facts.recipients = [];
      }
      return {};
    case 'RCPT': {
      if (!is(code, 250, '4xx', '5xx')) return wrong('RCPT answered neither 250 nor 4xx/5xx');
      if (code !== 250) return {};
      if (!facts.mail) return wrong('RCPT accepted without MAIL');
      const address = envelopeAddress(unit.line) ?? '';
      if (!facts.authenticated && !context.receives(address)) return wrong(`relay without AUTH to <${address}>`);
      if (!facts.recipients.includes(address)) facts.recipients.push(address);
      return {};
    }
    case 'DATA':
      if (!is(code, 354, '4xx', '5xx')) return wrong('DATA answered neither 354 nor 4xx/5xx');
      if (code === 354 && facts.recipients.length === 0) return wrong('DATA accepted without a recipient');
      return {};
    case 'RSET':
    case 'NOOP':
      if (!is(code, 250, '5xx')) return wrong(`${unit.verb} answered neither 250 nor 5xx`);
      if (code === 250 && unit.verb === 'RSET') resetTransaction(facts);
      return {};
    case 'QUIT':
      return is(code, 221, '5xx') ? {} : wrong('QUIT answered neither 221 nor 5xx');
    case 'STARTTLS':
      if (!is(code, 220, '4xx', '5xx')) return wrong('STARTTLS answered neither 220 nor 4xx/5xx');
      if (code === 220 && facts.secure) return wrong('STARTTLS accepted inside TLS');
      return {};
    case 'AUTH':
      if (!facts.secure) return code === 538 ? {} : wrong('AUTH before TLS not answered 538');
      facts.rightCredentials = false;
      return authReply(unit.line, code, facts, context, wrong);
    case 'VRFY':
    case 'HELP':
      return is(code, 214, 252, '5xx') ? {} : wrong(`${unit.verb} answered ${code}`);
    default:
      return is(code, '5xx') ? {} : wrong(`an unknown command (${JSON.stringify(unit.verb.slice(0, 20))}) not answered 5xx`);
  }
}

function authReply(line: Buffer, code: number, facts: SessionFacts, context: CheckContext, wrong: (why: string) => Verdict): Verdict {
  // Decoded as leniently as Node does (characters outside base64 skipped): a key with a CR
  // inside its base64 is still the key.
  const words = line
    .toString('latin1')
    .trim()
    .split(/[ \t]+/);
  if (words.some((w) => Buffer.from(w, 'base64').includes(context.apiKey))) facts.rightCredentials = true;
  if (!is(code, 334, 235, '4xx', '5xx')) return wrong('AUTH answered neither 334, 235 nor 4xx/5xx');
  if (code === 235) {
    if (!facts.rightCredentials) return wrong('AUTH accepted without the right credentials');
    facts.authenticated = true;
  }
  return {};
}
