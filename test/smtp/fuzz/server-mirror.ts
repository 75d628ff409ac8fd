// What an SMTP server owes the client, worked out from the bytes the client sent and the
// replies it has had: the fuzzer's oracle for "this needs an answer" and "this answer is to
// what". It mirrors smtp-server's input parser (node_modules/smtp-server/dist/esm/smtp-stream.js):
// in command mode every line ending in LF (CR before it optional) is one command and gets one
// reply; after a 354 the bytes are message data up to the first CRLF.CRLF (or `.` CRLF at the
// very start), whose end gets one reply. A command whose reply can change how what follows is
// read (DATA, AUTH, STARTTLS, QUIT) holds the scan until that reply arrives.

export type Unit =
  | { kind: 'command'; verb: string; line: Buffer }
  /** A line answering a 334 of an AUTH exchange. */
  | { kind: 'auth-response'; line: Buffer }
  | { kind: 'data-end' };

/** smtp-server's maxCommandLength: a longer line ends the session with 421. */
const MAX_COMMAND_LENGTH = 16 * 1024;
/** The verb of a line over MAX_COMMAND_LENGTH. */
const TOO_LONG = '(line too long)';
const HOLDING_VERBS = new Set(['DATA', 'AUTH', 'STARTTLS', 'QUIT']);
const END_OF_DATA = Buffer.from('\r\n.\r\n');

type Mode = 'command' | 'data' | 'tls' | 'closed';

export class ServerMirror {
  mode: Mode = 'command';
  /** Units sent whole and not answered yet, oldest first. */
  readonly owed: Unit[] = [];
  /** Bytes sent that the mirror has not assigned to a unit yet. */
  private unread = Buffer.alloc(0);
  /** A holding command was sent: later bytes wait for its reply. */
  private holding = false;
  private nextIsAuthResponse = false;
  /** In data mode: the message bytes read so far end with CRLF (or the message just started). */
  private dataTail = Buffer.from('\r\n');

  /** The client sent `bytes`. */
  sent(bytes: Buffer): void {
    if (this.mode === 'closed' || this.mode === 'tls') return;
    this.unread = Buffer.concat([this.unread, bytes]);
    this.scan();
  }

  /** Bytes sent but not yet read as a whole unit (an unfinished line or message). */
  get unfinished(): number {
    return this.unread.length;
  }

  /** The oldest owed unit got reply `code`; returns that unit (undefined: nothing was owed). */
  replied(code: number): Unit | undefined {
    const unit = this.owed.shift();
    if (!unit) return undefined;
    const verb = unit.kind === 'command' ? unit.verb : undefined;
    if (code === 421 || (code === 221 && verb === 'QUIT')) {
      this.close();
      return unit;
    }
    if (unit.kind !== 'data-end' && (verb === 'AUTH' || unit.kind === 'auth-response')) this.nextIsAuthResponse = code === 334;
    if (verb === 'DATA' && code === 354) {
      this.mode = 'data';
      this.dataTail = Buffer.from('\r\n');
    }
    if (verb === 'STARTTLS' && code === 220) this.mode = 'tls';
    if (this.owed.length === 0) this.holding = false; // a holding unit is always the last one owed
    this.scan();
    return unit;
  }

  /** After a TLS handshake on the STARTTLS port: a fresh command stream. */
  secured(): void {
    this.mode = 'command';
    this.unread = Buffer.alloc(0);
  }

  close(): void {
    this.mode = 'closed';
    this.owed.length = 0;
    this.unread = Buffer.alloc(0);
  }

  private scan(): void {
    while (!this.holding) {
      if (this.mode === 'data') {
        if (!this.readData()) return;
        continue;
      }
      if (this.mode !== 'command') return;
      const lf = this.unread.indexOf(0x0a);
      const lineEnd = lf < 0 ? this.unread.length : lf > 0 && this.unread[lf - 1] === 0x0d ? lf - 1 : lf;
      if (lineEnd > MAX_COMMAND_LENGTH) {
        // smtp-server answers 421 and closes; that reply is owed to this line.
        this.owed.push({ kind: 'command', verb: TOO_LONG, line: this.unread.subarray(0, 64) });
        this.holding = true;
        return;
      }
      if (lf < 0) return;
      const line = this.unread.subarray(0, lineEnd);
      this.unread = this.unread.subarray(lf + 1);
      if (this.nextIsAuthResponse) {
        this.nextIsAuthResponse = false;
        this.owed.push({ kind: 'auth-response', line });
        this.holding = true; // a 334 may ask for another line
        continue;
      }
      const verb = line.toString('latin1').split(' ')[0]!.toUpperCase();
      this.owed.push({ kind: 'command', verb, line });
      if (HOLDING_VERBS.has(verb)) this.holding = true;
    }
  }

  /** Reads message data up to its end; true when the end was found (and is now owed). */
  private readData(): boolean {
    const window = Buffer.concat([this.dataTail, this.unread]);
    const end = window.indexOf(END_OF_DATA);
    if (end < 0) {
      this.dataTail = window.subarray(Math.max(0, window.length - 4));
      this.unread = Buffer.alloc(0);
      return false;
    }
    this.unread = window.subarray(end + END_OF_DATA.length);
    this.owed.push({ kind: 'data-end' });
    this.mode = 'command';
    this.holding = true; // the next command is read once the message is answered
    return true;
  }
}
