// The /broadcasts routes (resend-compat-notes §2.8), one file per operation, for server.ts to
// mount. The fan-out that sends them runs in the worker role (fan-out.ts).
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import type { SandboxSending } from '../emails/sender-domain.js';
import { cancelBroadcast } from './cancel-broadcast.js';
import { countRecipients } from './count-recipients.js';
import { createBroadcast } from './create-broadcast.js';
import { deleteBroadcast } from './delete-broadcast.js';
import { duplicateBroadcast } from './duplicate-broadcast.js';
import { getBroadcastStats } from './get-broadcast-stats.js';
import { getBroadcast } from './get-broadcast.js';
import { listBroadcasts } from './list-broadcasts.js';
import { listClickedLinks } from './list-clicked-links.js';
import { listMergeTags } from './list-merge-tags.js';
import { listRecipients } from './list-recipients.js';
import { sendBroadcast } from './send-broadcast.js';
import { updateBroadcast } from './update-broadcast.js';

/** `sandbox` (POSTLINE_SANDBOX): any sender domain may send, as for emails (emails/sender-domain.ts). */
export function broadcastRoutes(db: Db, sandbox?: SandboxSending): Route[] {
  return [
    createBroadcast(db, sandbox),
    listBroadcasts(db),
    listMergeTags(db),
    getBroadcast(db),
    updateBroadcast(db, sandbox),
    deleteBroadcast(db),
    sendBroadcast(db, sandbox),
    cancelBroadcast(db),
    duplicateBroadcast(db),
    listRecipients(db),
    listClickedLinks(db),
    getBroadcastStats(db),
    countRecipients(db),
  ];
}
