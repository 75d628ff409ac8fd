// The /suppressions routes (resend-compat-notes §2.13), one file per operation, for server.ts to mount.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { addSuppression } from './add-suppression.js';
import { batchAddSuppressions } from './batch-add-suppressions.js';
import { batchRemoveSuppressions } from './batch-remove-suppressions.js';
import { getSuppression } from './get-suppression.js';
import { listSuppressions } from './list-suppressions.js';
import { deleteSuppression } from './delete-suppression.js';

export function suppressionRoutes(db: Db): Route[] {
  return [addSuppression(db), listSuppressions(db), batchAddSuppressions(db), batchRemoveSuppressions(db), getSuppression(db), deleteSuppression(db)];
}
