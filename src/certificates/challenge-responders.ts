// The servers an ACME CA checks while an order runs (acme.ts): http-01 on port 80 (RFC 8555
// §8.3) and tls-alpn-01 on 443 (RFC 8737). Each asks `keyAuthorization` what to answer (for
// Postline, the database: own-certificate.ts, so every node answers for an order any node runs)
// and refuses everything else (404; no certificate), so a port opened for the CA shows nothing
// more to anyone else. Both stop by closing their listener and dropping open connections: a
// CA that validates does so within seconds of being asked.
import http from 'node:http';
import type net from 'node:net';
import tls from 'node:tls';
import { tlsAlpnChallengeCertificate } from './acme-x509.js';

interface RunningResponder {
  /** The port listened on (the one asked for, or the one the system chose for 0). */
  port: number;
  stop(): Promise<void>;
}

interface ResponderOptions {
  host: string;
  port: number;
  /** The key authorization of the challenge in flight for a token (http-01) or host name (tls-alpn-01). */
  keyAuthorization(key: string): Promise<string | undefined>;
}

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]{1,256})$/;

/** http-01: GET (or HEAD) /.well-known/acme-challenge/<token> answers the token's key authorization. */
export async function startHttp01Responder(options: ResponderOptions): Promise<RunningResponder> {
  const server = http.createServer((request, response) => {
    const token = CHALLENGE_PATH.exec(request.url ?? '')?.[1];
    const asked = token !== undefined && (request.method === 'GET' || request.method === 'HEAD');
    const answer = asked ? options.keyAuthorization(token).catch(() => undefined) : Promise.resolve(undefined);
    void answer.then((keyAuthorization) => {
      if (keyAuthorization === undefined) response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      else response.writeHead(200, { 'content-type': 'text/plain' }).end(keyAuthorization);
    });
  });
  return listen(server, options);
}

/**
 * tls-alpn-01: a TLS handshake for a host name (SNI) with a challenge in flight and ALPN
 * `acme-tls/1` is answered with a certificate made for that challenge (its acmeIdentifier is the
 * key authorization's digest) and then closed; RFC 8737 §3 wants nothing more on such a
 * connection. Any other handshake fails (no certificate, or no protocol in common).
 */
export async function startTlsAlpn01Responder(options: ResponderOptions): Promise<RunningResponder> {
  // A CA checks from several vantage points at once: one certificate per challenge, not per handshake.
  const contexts = new Map<string, tls.SecureContext>();
  const server = tls.createServer({
    ALPNProtocols: ['acme-tls/1'],
    SNICallback: (servername, callback) => {
      const hostname = servername.toLowerCase();
      options.keyAuthorization(hostname).then(
        (keyAuthorization) => {
          if (keyAuthorization === undefined) return callback(new Error(`no tls-alpn-01 challenge for ${servername}`));
          const key = `${hostname} ${keyAuthorization}`;
          let context = contexts.get(key);
          if (!context) {
            if (contexts.size >= 100) contexts.clear();
            context = tls.createSecureContext(tlsAlpnChallengeCertificate(hostname, keyAuthorization));
            contexts.set(key, context);
          }
          callback(null, context);
        },
        (err: Error) => callback(err),
      );
    },
  });
  server.on('secureConnection', (socket) => socket.end());
  server.on('tlsClientError', () => {}); // a handshake refused above: nothing to do
  return listen(server, options);
}

async function listen(server: net.Server, options: { host: string; port: number }): Promise<RunningResponder> {
  const connections = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of connections) socket.destroy();
      await closed;
    },
  };
}
