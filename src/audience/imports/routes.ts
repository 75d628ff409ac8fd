// The /contacts/imports routes (resend-compat-notes §2.6), mounted from server.ts beside the
// other contact routes. Their static `imports` segment wins over `/contacts/:contact` in the
// router whatever the order, so no contact is ever looked up by the address "imports".
import type { Route } from '../../api/route.js';
import type { Db } from '../../db/database.js';
import { createImport } from './create-import.js';
import { getImport } from './get-import.js';
import { listImports } from './list-imports.js';

export function contactImportRoutes(db: Db): Route[] {
  return [createImport(db), listImports(db), getImport(db)];
}
