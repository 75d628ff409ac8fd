// GET /openapi.json: the description of the routes this node mounts (document.ts), without an
// API key, built at the first request from the list server.ts mounts (this route included).
import { readFileSync } from 'node:fs';
import type { Route } from '../api/route.js';
import { object, string } from '../api/schema.js';
import { openApiDocument } from './document.js';

/** Postline's version from its package.json, found upward from this file (src/ or dist/src/). */
function postlineVersion(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
      if (pkg.name === 'postline') return pkg.version;
    } catch {
      // no package.json here: look one folder up
    }
  }
  return 'unknown';
}

export function openApiRoutes(mounted: () => readonly Route[]): Route[] {
  let document: Record<string, unknown> | undefined;
  return [
    {
      method: 'GET',
      url: '/openapi.json',
      access: 'public',
      doc: {
        summary: 'This API described in OpenAPI 3.1',
        addition: true,
        response: { status: 200, schema: object({ openapi: string(), info: object({ title: string(), version: string() }), paths: { type: 'object' } }) },
      },
      async handler() {
        document ??= openApiDocument(mounted(), { version: postlineVersion() });
        return { body: document };
      },
    },
  ];
}
