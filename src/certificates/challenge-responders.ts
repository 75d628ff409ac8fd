// Standalone servers that answer ACME challenges (acme.ts) while an order runs: http-01 on port
// 80 (RFC 8555 §8.3) and tls-alpn-01 on 443 (RFC 8737). Each answers only for challenges it has
// been given and refuses everything else (404; no certificate), so a port opened for the CA
// shows nothing more to anyone else. Both stop by closing their listener and dropping open
// connections: a CA that validates does so within seconds of being asked.
import http from 'node:http';
import type net from 'node:net';
import tls from 'node:tls';
import type { ChallengeResponder, PublishedChallenge } from './acme.js';

interface RunningResponder {
  responder: ChallengeResponder;
  /** The port listened on (the one asked for, or the one the system chose for 0). */
  port: number;
  stop(): Promise<void>;
}

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/;

/** http-01: GET (or HEAD) /.well-known/acme-challenge/<token> answers the token's key authorization. */
export async function startHttp01Responder(options: { host: string; port: number }): Promise<RunningResponder> {
  const keyAuthorizations = new Map<string, string>();
  const server = http.createServer((request, response) => {
    const token = CHALLENGE_PATH.exec(request.url ?? '')?.[1];
    const keyAuthorization = token !== undefined && (request.method === 'GET' || request.method === 'HEAD') ? keyAuthorizations.get(token) : undefined;
    if (keyAuthorization === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(keyAuthorization);
  });
  const responder = {
    publish(challenge: PublishedChallenge) {
      if (challenge.type !== 'http-01') throw new Error(`the http-01 responder cannot serve a ${challenge.type} challenge`);
      keyAuthorizations.set(challenge.token, challenge.keyAuthorization);
    },
    unpublish(challenge: PublishedChallenge) {
      if (challenge.type === 'http-01') keyAuthorizations.delete(challenge.token);
    },
  };
  return { responder, ...(await listen(server, options)) };
}

/**
 * tls-alpn-01: a TLS handshake for a published host name (SNI) with ALPN `acme-tls/1` is
 * answered with that host's challenge certificate and then closed; RFC 8737 §3 wants nothing
 * more on such a connection. Any other handshake fails (no certificate, or no protocol in common).
 */
export async function startTlsAlpn01Responder(options: { host: string; port: number }): Promise<RunningResponder> {
  const contexts = new Map<string, tls.SecureContext>();
  const server = tls.createServer({
    ALPNProtocols: ['acme-tls/1'],
    SNICallback: (servername, callback) => {
      const context = contexts.get(servername.toLowerCase());
      callback(context ? null : new Error(`no tls-alpn-01 challenge for ${servername}`), context);
    },
  });
  server.on('secureConnection', (socket) => socket.end());
  server.on('tlsClientError', () => {}); // a handshake refused above: nothing to do
  const responder = {
    publish(challenge: PublishedChallenge) {
      if (challenge.type !== 'tls-alpn-01') throw new Error(`the tls-alpn-01 responder cannot serve a ${challenge.type} challenge`);
      contexts.set(challenge.hostname.toLowerCase(), tls.createSecureContext({ key: challenge.key, cert: challenge.cert }));
    },
    unpublish(challenge: PublishedChallenge) {
      if (challenge.type === 'tls-alpn-01') contexts.delete(challenge.hostname.toLowerCase());
    },
  };
  return { responder, ...(await listen(server, options)) };
}

async function listen(server: net.Server, options: { host: string; port: number }): Promise<{ port: number; stop(): Promise<void> }> {
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
