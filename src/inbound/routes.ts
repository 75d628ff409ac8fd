// The /emails/receiving routes, the signed downloads of received mail and what came back to an
// email's return path (/emails/:id/reports), for server.ts to mount. `/emails/receiving…` sits beside `/emails/:id…`: the router prefers the static
// segment, so `receiving` never reads as an email id.
import type { Route } from '../api/route.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { signers } from '../signed-urls/url-signing.js';
import { downloadReceivedAttachment, downloadReceivedEmail } from './download-received.js';
import { getReceivedAttachment } from './get-received-attachment.js';
import { getReceived } from './get-received.js';
import { listReceivedAttachments } from './list-received-attachments.js';
import { listReceived } from './list-received.js';
import { listReturnPathReports } from './list-return-path-reports.js';

export function inboundRoutes(db: Db, config: Pick<Config, 'publicUrl' | 'downloadUrlTtlMs'>): Route[] {
  const sign = signers(db);
  const signer = () => sign('received-download');
  const links = async () => ({ publicUrl: config.publicUrl, signer: await signer(), ttlMs: config.downloadUrlTtlMs });
  return [
    listReceived(db),
    getReceived(db, links),
    listReceivedAttachments(db, links),
    getReceivedAttachment(db, links),
    downloadReceivedEmail(db, signer),
    downloadReceivedAttachment(db, signer),
    listReturnPathReports(db),
  ];
}
