// A request whose Host is a domain's tracking host (tracking/tracking-hosts.ts) may only be a
// tracking request (the open pixel, a click): anything else there is 404, so a customer's name
// never serves the API, the dashboard or another account's pages.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { notFound } from '../api/errors.js';

/** The open pixel, a click, and the ACME CA checking the host for its certificate. */
const TRACKING_PATH = /^\/(?:t\/[oc]\/|\.well-known\/acme-challenge\/)/;

async function trackingHosts(app: FastifyInstance, options: { hosts?: { has(host: string): boolean } }): Promise<void> {
  const { hosts } = options;
  if (!hosts) return;
  app.addHook('onRequest', async (request) => {
    if (hosts.has(request.hostname) && !TRACKING_PATH.test(request.url)) throw notFound('Page');
  });
}

export default fp(trackingHosts, { name: 'tracking-hosts' });
