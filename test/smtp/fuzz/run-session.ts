// Plays one session plan on a real socket (node:net, node:tls: the bytes go out as they are)
// and judges every reply: its syntax and fitness (reply-checks.ts), that it comes within
// REPLY_WAIT_MS whenever the server owes one (server-mirror.ts), and that the server never
// closes without a 221 or 421 unless the client went first.
import net from 'node:net';
import tls from 'node:tls';
import type { Action, SessionPlan } from './session-plans.js';
import { checkReply, type CheckContext, type Reply, ReplyReader, type SessionFacts } from './reply-checks.js';
import { ServerMirror, type Unit } from './server-mirror.js';

/** The longest a client may wait for a reply it is owed. */
const REPLY_WAIT_MS = 5_000;
/** A connection (and on the implicit-TLS port its handshake) not made within this is a problem, not a hang. */
const CONNECT_WAIT_MS = 10_000;

export interface FuzzTarget {
  starttlsPort: number;
  implicitPort: number;
  apiKey: string;
  checks: CheckContext;
  /** How long the server lets a silent session (or an unfinished message) be before its 421. */
  timeoutMs: number;
}

export interface Accepted {
  recipients: string[];
  emailId?: string;
  inbound: boolean;
}

interface SessionReport {
  problems: string[];
  /** Reply codes seen, with their counts. */
  codes: Map<number, number>;
  slowestReplyMs: number;
  slowestReplyTo: string;
  accepted: Accepted[];
  /** The session's last exchanges (C: sent, S: received), to read a problem by. */
  transcript: string[];
}

type Socket = net.Socket | tls.TLSSocket;

const describe = (unit: Unit | undefined) =>
  !unit ? 'nothing' : unit.kind === 'command' ? JSON.stringify(unit.line.toString('latin1').slice(0, 60)) : unit.kind;

class FuzzSession {
  readonly report: SessionReport = { problems: [], codes: new Map(), slowestReplyMs: 0, slowestReplyTo: '', accepted: [], transcript: [] };
  private readonly reader = new ReplyReader();
  private readonly mirror = new ServerMirror();
  private readonly facts: SessionFacts = { secure: false, greeted: false, authenticated: false, mail: false, recipients: [], rightCredentials: false };
  private greeted = false;
  /** The last reply closes the session (221, 421). */
  private lastCloses = false;
  private clientClosed = false;
  closed = false;
  private waitingSince = 0;
  private replies = 0;
  private wake: (() => void) | undefined;

  constructor(
    private socket: Socket,
    private target: FuzzTarget,
    secure: boolean,
  ) {
    this.facts.secure = secure;
    this.waitingSince = Date.now(); // for the greeting
    this.listen(socket);
  }

  private listen(socket: Socket): void {
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('error', () => {});
    socket.once('close', () => this.socketClosed(socket));
  }

  private note(line: string): void {
    this.report.transcript.push(line.length > 200 ? `${line.slice(0, 200)}… (${line.length})` : line);
    if (this.report.transcript.length > 40) this.report.transcript.shift();
  }

  private received(chunk: Buffer): void {
    this.note(`S: ${JSON.stringify(chunk.toString('latin1'))}`);
    for (const reply of this.reader.push(chunk)) this.judge(reply);
    for (const line of this.reader.malformed.splice(0)) this.problem(`malformed reply line ${JSON.stringify(line)}`);
    this.wake?.();
  }

  private judge(reply: Reply): void {
    const { report } = this;
    this.replies++;
    report.codes.set(reply.code, (report.codes.get(reply.code) ?? 0) + 1);
    let unit: Unit | undefined;
    if (!this.greeted) {
      this.greeted = true;
      if (![220, 421, 554].includes(reply.code)) this.problem(`greeting ${reply.code} ${reply.lines[0]}`);
    } else {
      const waited = Date.now() - this.waitingSince;
      unit = this.mirror.replied(reply.code);
      if (unit && waited > report.slowestReplyMs) {
        report.slowestReplyMs = waited;
        report.slowestReplyTo = describe(unit);
      }
      const verdict = checkReply(unit, reply, this.facts, this.target.checks);
      if (verdict.problem) this.problem(`${verdict.problem} (to ${describe(unit)})`);
      if (verdict.accepted) report.accepted.push(verdict.accepted);
    }
    this.waitingSince = Date.now();
    this.lastCloses = reply.code === 421 || (reply.code === 221 && unit?.kind === 'command' && unit.verb === 'QUIT');
    if (this.lastCloses) this.mirror.close();
  }

  private socketClosed(socket: Socket): void {
    if (socket !== this.socket) return; // the plain socket under a TLS one
    this.closed = true;
    if (!this.clientClosed) {
      if (!this.lastCloses) this.problem(`closed by the server without 221 or 421 (owed ${this.mirror.owed.length} replies)`);
      if (this.reader.leftover) this.problem(`a reply cut off: ${JSON.stringify(this.reader.leftover.slice(0, 80))}`);
    }
    this.wake?.();
  }

  problem(text: string): void {
    this.report.problems.push(text);
  }

  /** Waits until every reply owed has come (each within REPLY_WAIT_MS), or the session ended. */
  async settle(waitMs = REPLY_WAIT_MS): Promise<void> {
    while (!this.closed && (!this.greeted || this.mirror.owed.length > 0)) {
      const before = this.replies + this.reader.leftover.length;
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), Math.max(0, this.waitingSince + waitMs - Date.now()));
        this.wake = () => (clearTimeout(timer), resolve(false));
      });
      this.wake = undefined;
      if (timedOut && before === this.replies + this.reader.leftover.length) {
        const owed = this.greeted ? describe(this.mirror.owed[0]) : 'the greeting';
        this.problem(`no reply within ${waitMs} ms to ${owed}`);
        return this.drop();
      }
    }
  }

  /** Says nothing more: the server must end the session (421) within `waitMs`. */
  async serverTimeout(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.wake = () => (clearTimeout(timer), resolve());
      });
      this.wake = undefined;
    }
    if (!this.closed) this.problem(`a silent session not ended by the server within ${waitMs} ms`);
  }

  get mode() {
    return this.mirror.mode;
  }

  get isAuthenticated(): boolean {
    return this.facts.authenticated;
  }

  async send(bytes: Buffer, pieces = 1): Promise<void> {
    const size = Math.ceil(bytes.length / pieces);
    for (let at = 0; at < bytes.length && !this.closed; at += size) {
      const piece = bytes.subarray(at, at + size);
      if (this.mirror.owed.length === 0) this.waitingSince = Date.now();
      this.mirror.sent(piece);
      this.note(`C: ${JSON.stringify(piece.toString('latin1'))}`);
      await new Promise<void>((resolve) => this.socket.write(piece, () => resolve()));
      this.waitingSince = Math.max(this.waitingSince, Date.now()); // waiting starts once the bytes are out
    }
    await this.settle();
  }

  /** After a 220 to STARTTLS: the handshake, then a fresh session inside TLS. */
  async upgrade(): Promise<void> {
    const secure = tls.connect({ socket: this.socket as net.Socket, rejectUnauthorized: false });
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), REPLY_WAIT_MS);
      secure.once('secureConnect', () => (clearTimeout(timer), resolve(true)));
      secure.once('error', () => (clearTimeout(timer), resolve(false)));
    });
    if (!ok) {
      this.problem('TLS handshake after STARTTLS failed');
      return this.drop();
    }
    this.socket.removeAllListeners('data');
    this.socket = secure;
    this.listen(secure);
    this.mirror.secured();
    Object.assign(this.facts, { secure: true, greeted: false, authenticated: false, mail: false, recipients: [] });
  }

  drop(): void {
    this.clientClosed = true;
    this.socket.destroy();
  }
}

async function connect(target: FuzzTarget, plan: SessionPlan, localAddress: string): Promise<FuzzSession | string> {
  const implicit = plan.port === 'implicit';
  const options = { host: '127.0.0.1', port: implicit ? target.implicitPort : target.starttlsPort, localAddress };
  const socket = implicit ? tls.connect({ ...options, rejectUnauthorized: false }) : net.connect(options);
  const error = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(`could not connect within ${CONNECT_WAIT_MS} ms`), CONNECT_WAIT_MS);
    socket.once(implicit ? 'secureConnect' : 'connect', () => (clearTimeout(timer), resolve(undefined)));
    socket.once('error', (err) => (clearTimeout(timer), resolve(`could not connect: ${err.message}`)));
  });
  if (error) {
    socket.destroy();
    return error;
  }
  const session = new FuzzSession(socket, target, implicit);
  await session.settle();
  return session;
}

/** The well-formed steps a plan starts with; false (and a problem) when one is refused. */
async function setUp(session: FuzzSession, plan: SessionPlan, target: FuzzTarget): Promise<boolean> {
  const steps: (Action | 'EHLO')[] = [];
  if (plan.start !== 'greeting') steps.push('EHLO');
  if ((plan.start === 'tls' || plan.start === 'auth') && plan.port === 'starttls') steps.push({ kind: 'starttls' }, 'EHLO');
  for (const step of steps) {
    await act(session, step === 'EHLO' ? { kind: 'send', bytes: 'EHLO client.test\r\n', pieces: 1 } : step);
    if (session.closed) return false;
  }
  if (plan.start === 'auth') {
    await session.send(Buffer.from(`AUTH PLAIN ${Buffer.from(`\0resend\0${target.apiKey}`).toString('base64')}\r\n`));
    if (!session.isAuthenticated) session.problem('AUTH with the API key refused');
  }
  return !session.closed;
}

async function act(session: FuzzSession, action: Action): Promise<void> {
  if (action.kind === 'starttls') {
    await session.send(Buffer.from('STARTTLS\r\n'));
    if (session.mode === 'tls') await session.upgrade();
    return;
  }
  await session.send(Buffer.from(action.bytes, 'latin1'), action.pieces);
  // A STARTTLS among the bytes (with more after it, which RFC 3207 forbids): the client broke
  // its own session, the server cannot be blamed for what follows.
  if (session.mode === 'tls') session.drop();
}

/** Plays `plan` from the loopback address `localAddress` (each its own count for the server's per-address limits). */
export async function runSession(target: FuzzTarget, plan: SessionPlan, localAddress: string): Promise<SessionReport> {
  const session = await connect(target, plan, localAddress);
  if (typeof session === 'string') return { problems: [session], codes: new Map(), slowestReplyMs: 0, slowestReplyTo: '', accepted: [], transcript: [] };
  if (await setUp(session, plan, target)) {
    for (const action of plan.actions) {
      if (session.closed || session.mode === 'closed' || session.mode === 'tls') break;
      await act(session, action);
    }
  }
  if (!session.closed && session.mode !== 'tls') {
    if (plan.end === 'quit' && session.mode === 'command') await session.send(Buffer.from('QUIT\r\n'));
    if (plan.end === 'wait-for-timeout') await session.serverTimeout(target.timeoutMs + REPLY_WAIT_MS);
  }
  session.drop();
  return session.report;
}
