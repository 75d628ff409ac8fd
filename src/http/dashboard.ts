// The dashboard's web app (web/, built to web/dist by `npm install`): its files at /dashboard,
// every other path under it answered with index.html (the app routes in the browser), all
// from this process, so it works with no internet access. Each answer carries the
// Content-Security-Policy: scripts, styles, images and fonts from this origin only (none
// inline), no plugins, never framed, and no frame but the mail preview, a document served by
// this origin under a policy of its own (mail-preview.ts).
// The file list is read once at start; a path outside it is never looked up on disk. Text
// files go gzipped to browsers that take it (each compressed once, on first request).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../api/errors.js';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** web/dist of this checkout: found upward from this file (src/http/ or dist/src/http/). */
function builtApp(): string | undefined {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'web'))) {
      const dist = path.join(dir, 'web', 'dist');
      return existsSync(path.join(dist, 'index.html')) ? dist : undefined;
    }
  }
  return undefined;
}

function filesUnder(dir: string, prefix = ''): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) for (const [k, v] of filesUnder(full, `${prefix}${name}/`)) files.set(k, v);
    else files.set(`${prefix}${name}`, readFileSync(full));
  }
  return files;
}

/** The file a URL asks for, relative to web/dist ('' for the app's root). */
function fileName(url: string): string {
  const raw = url.replace(/^\/dashboard\/?/, '').split('?')[0]!;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // malformed escapes name no file: the app answers
  }
}

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);

export async function dashboard(app: FastifyInstance): Promise<void> {
  const dist = builtApp();
  // A few hundred KB, kept in memory: no disk read per request.
  const files = dist ? filesUnder(dist) : new Map<string, Buffer>();
  const gzipped = new Map<string, Buffer>();
  const send = (reply: FastifyReply, name: string, acceptEncoding: string | undefined) => {
    let body = files.get(name)!;
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    // Vite names assets by their content: cached for good; index.html always asked again.
    reply.header('cache-control', name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (COMPRESSIBLE.has(path.extname(name))) {
      reply.header('vary', 'accept-encoding');
      if (/\bgzip\b/.test(acceptEncoding ?? '')) {
        if (!gzipped.has(name)) gzipped.set(name, gzipSync(body, { level: 9 }));
        body = gzipped.get(name)!;
        reply.header('content-encoding', 'gzip');
      }
    }
    return reply.type(TYPES[path.extname(name)] ?? 'application/octet-stream').send(body);
  };
  const serve = async (url: string, acceptEncoding: string | undefined, reply: FastifyReply) => {
    if (url.startsWith('/dashboard/api/')) throw new ApiError('not_found', 'The requested endpoint does not exist.');
    if (!files.has('index.html')) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm install` (or `npm run build:web`).\n');
    }
    const name = fileName(url);
    if (files.has(name) && name !== '') return send(reply, name, acceptEncoding);
    if (name.startsWith('assets/')) throw new ApiError('not_found', 'No such file.');
    return send(reply, 'index.html', acceptEncoding);
  };
  const config = { dashboardFile: true };
  app.get('/dashboard', { config }, (req, reply) => serve(req.url, req.headers['accept-encoding'], reply));
  app.get('/dashboard/*', { config }, (req, reply) => serve(req.url, req.headers['accept-encoding'], reply));
}
