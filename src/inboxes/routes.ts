// The /inboxes routes, for server.ts to mount: inboxes, their threads and the threads' emails,
// labels, drafts and the agent's settings, each concept in a file of its own.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from '../emails/accept.js';
import { agentRoutes } from './agent-routes.js';
import { draftRoutes } from './draft-routes.js';
import { inboxCrudRoutes } from './inbox-routes.js';
import { labelRoutes } from './label-routes.js';
import { threadEmailRoutes } from './thread-email-routes.js';
import { threadRoutes } from './thread-routes.js';

export function inboxRoutes(db: Db, accept: AcceptDeps): Route[] {
  return [...inboxCrudRoutes(db), ...threadRoutes(db), ...threadEmailRoutes(db, accept), ...labelRoutes(db), ...draftRoutes(db, accept), ...agentRoutes(db)];
}
