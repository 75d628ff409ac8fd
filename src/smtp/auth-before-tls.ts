// AUTH before STARTTLS is neither offered nor accepted (on-connect.ts disables it for the
// session), and smtp-server answers a disabled command as unknown (500 5.5.2), which tells a
// client nothing. RFC 4954 §6 has the answer for it: 538 5.7.11 "Encryption required for
// requested authentication mechanism". smtp-server has no hook for a disabled command, so its
// command dispatcher is wrapped here, for that one case only; test/smtp/auth-over-tls-only
// pins the reply.
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

interface Dispatcher {
  secure: boolean;
  _upgrading?: boolean;
  session: { disabledCommands?: string[] };
  send(code: number, text: string, context: false): void;
  _whenWritable(next: () => unknown): void;
  _onCommand(command: Buffer | string, callback?: () => unknown): unknown;
}

const prototype = SMTPConnection.prototype as unknown as Dispatcher;
const dispatch = prototype._onCommand;

prototype._onCommand = function (this: Dispatcher, command, callback) {
  const verb = (command ?? '').toString().trimStart().slice(0, 5).toUpperCase();
  if ((verb === 'AUTH' || verb.startsWith('AUTH ')) && !this.secure && !this._upgrading && this.session.disabledCommands?.includes('AUTH')) {
    this.send(538, '5.7.11 Encryption required for requested authentication mechanism', false);
    return this._whenWritable(callback ?? (() => false));
  }
  return dispatch.call(this, command, callback);
};
