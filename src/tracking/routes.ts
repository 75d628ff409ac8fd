// The tracking routes (no API key; each URL carries its own signature), for server.ts to mount.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { signers } from '../signed-urls/url-signing.js';
import { clickRedirect } from './click-redirect.js';
import { openPixel } from './open-pixel.js';

export function trackingRoutes(db: Db): Route[] {
  const signer = signers(db);
  return [openPixel(db, () => signer('open-tracking')), clickRedirect(db, () => signer('click-tracking'))];
}
