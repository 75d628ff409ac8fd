// The floors under Postline's SMTP submission rate (bench/smtp-submission.ts --server): two
// servers that speak just enough submission SMTP (greeting, EHLO, STARTTLS, AUTH, MAIL, RCPT,
// DATA, QUIT) to be driven by the same generator as Postline, and keep nothing:
//   tls-floor    node:net and node:tls with a reply per line: the cost of Node's TCP and TLS
//                for a session, under any SMTP server written for Node;
//   smtp-server  the smtp-server library as Postline configures it (src/smtp/listener.ts: no
//                greeting pause), with hooks that accept every AUTH and drop every message.
// Postline's rate over these says what its own work (policy, parsing, the commit) costs; these
// over Postfix's says what a Node SMTP server with TLS can reach on the machine at all.
//
//   node --import tsx bench/support/floor-server.ts tls-floor|smtp-server PORT
// Prints "listening" when ready; runs until killed.
import net from 'node:net';
import tls from 'node:tls';
import { SmtpListener } from '../../src/smtp/listener.js';
import { selfSignedCertificate } from '../../src/smtp/self-signed.js';

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg);
const { key, cert } = selfSignedCertificate('floor.bench.invalid');

/** A reply per command line, as a submission server answers one that does not pipeline. */
function tlsFloor(): net.Server {
  const secureContext = tls.createSecureContext({ key, cert });
  const serve = (socket: net.Socket, secure: boolean) => {
    let buffered = '';
    let inData = false;
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            socket.write('250 2.0.0 OK queued\r\n');
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO')
          socket.write(`250-floor.bench.invalid\r\n250-PIPELINING\r\n${secure ? '250-AUTH PLAIN LOGIN' : '250-STARTTLS'}\r\n250 8BITMIME\r\n`);
        else if (verb === 'STAR') {
          socket.removeListener('data', onData);
          socket.write('220 2.0.0 Ready to start TLS\r\n');
          serve(new tls.TLSSocket(socket, { isServer: true, secureContext }), true);
          return;
        } else if (verb === 'AUTH') socket.write('235 2.7.0 Authentication successful\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        } else if (verb === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
        else socket.write('250 2.1.0 OK\r\n');
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  };
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.write('220 floor.bench.invalid ESMTP\r\n');
    serve(socket, false);
  });
}

function smtpServer(): SmtpListener {
  const listener = new SmtpListener({
    key,
    cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'bench' }),
    onData: (stream, _session, callback) => {
      stream.on('data', () => {});
      stream.once('end', () => callback(null, 'OK queued'));
    },
  });
  listener.on('error', () => {});
  return listener;
}

const server = kind === 'tls-floor' ? tlsFloor() : kind === 'smtp-server' ? smtpServer() : undefined;
if (!server) throw new Error(`unknown floor server ${kind} (tls-floor or smtp-server)`);
server.listen(port, '127.0.0.1', () => console.log('listening'));
// A clean exit, so that `node --cpu-prof` writes its profile.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));
