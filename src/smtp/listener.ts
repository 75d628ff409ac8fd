// smtp-server as Postline runs it: the library speaks the protocol, and this subclass changes
// only how it sets up a connection (SMTPServer.connect, its documented extension point that
// builds an SMTPConnection), for two reasons:
//
// 1. Enhanced status codes. smtp-server adds one to every reply from a fixed table by reply
//    code, so a refusal given as `554` always reads `554 5.6.0` whatever it is about. Replies
//    whose text already starts with an enhanced code (replies.ts writes them so) are sent as
//    they are; every other reply keeps the library's code.
// 2. No pause before the greeting. SMTPConnection.init() waits 100 ms before greeting, to catch
//    clients that talk first. With one message per connection that pause is most of a
//    session's time and caps 20 concurrent clients at under 200 messages/s; the early-talker
//    check itself stays (a command before the greeting is still refused).
// Both use SMTPConnection members declared in the library's types; re-check when upgrading
// smtp-server (test/smtp/ covers both). The same two places count sessions and replies for
// the metrics (every reply goes through `send`).
import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection, type SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';
import { smtpReplied, smtpSessionOpened } from '../metrics/record.js';

const OWN_ENHANCED_CODE = /^[245]\.\d{1,3}\.\d{1,3} /;

export class SmtpListener extends SMTPServer {
  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new SMTPConnection(this, socket, socketOptions);
    // Every way a session ends goes through _onClose (STARTTLS drops the raw socket's listeners).
    const closed = smtpSessionOpened();
    const onClose = connection._onClose.bind(connection);
    connection._onClose = () => {
      closed();
      onClose();
    };
    const send = connection.send.bind(connection);
    connection.send = (code, data, context) => {
      smtpReplied(code);
      return send(code, data, typeof data === 'string' && OWN_ENHANCED_CODE.test(data) ? false : context);
    };
    this.connections.add(connection);
    connection.on('error', (err) => this.emit('error', err));
    connection.on('connect', (info) => this.emit('connect', info));
    // SMTPConnection.init() without its setTimeout(connectionReady, 100).
    connection._setListeners(() => {
      const max = this.options.maxClients;
      if (max && this.connections.size > max) {
        connection.send(421, `4.7.0 ${connection.name} Too many connected clients, try again in a moment`);
        return;
      }
      connection.connectionReady();
    });
  }
}
