// The /emails routes, one file per operation, for server.ts to mount. The accept pipeline's
// group committer is made here, one per process (SMTP submission will share it).
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from './accept.js';
import { getEmail } from './get-email.js';
import { GroupCommitter } from './group-commit.js';
import { listEmails } from './list-emails.js';
import { sendBatchEmails } from './send-batch-emails.js';
import { sendEmail } from './send-email.js';

export function emailRoutes(db: Db): Route[] {
  const accept: AcceptDeps = { db, committer: new GroupCommitter(db) };
  return [sendEmail(accept), sendBatchEmails(accept), listEmails(db), getEmail(db)];
}
