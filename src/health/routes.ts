// Probes for orchestrators and load balancers, without an API key: /healthz says the process
// answers (its event loop turns); /readyz says this node can do its work now: the database
// answers, its schema has every migration this code needs, and each role it was started with
// runs. /readyz answers 503 while the node is starting (the API listens before the other
// roles are up) and from the moment it begins to stop.
import type { Route } from '../api/route.js';
import { constant, object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { pendingMigrations } from '../db/migrate.js';

export type Phase = 'starting' | 'ready' | 'stopping';

export interface NodeState {
  phase(): Phase;
  /** Each role this node was started with, and whether it runs now. */
  roles(): Record<string, 'running' | 'stopped'>;
}

const ROLES_SCHEMA = { type: 'object' as const, additionalProperties: oneOfValues(['running', 'stopped']) };

/** A database that does not answer within this is as good as down for a probe. */
const DATABASE_DEADLINE_MS = 2_000;

async function databaseCheck(db: Db): Promise<{ database: string; migrations: string }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_DEADLINE_MS} ms`)), DATABASE_DEADLINE_MS);
  });
  try {
    const pending = await Promise.race([pendingMigrations(db), deadline]);
    return { database: 'ok', migrations: pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}` };
  } catch (err) {
    return { database: `failing: ${(err as Error).message}`, migrations: 'unknown' };
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(db: Db, node: NodeState): Route[] {
  return [
    {
      method: 'GET',
      url: '/healthz',
      access: 'public',
      doc: { summary: 'Liveness: the process answers', addition: true, response: { status: 200, schema: object({ status: constant('ok') }) } },
      async handler() {
        return { body: { status: 'ok' } };
      },
    },
    {
      method: 'GET',
      url: '/readyz',
      access: 'public',
      doc: {
        summary: 'Readiness: the database answers, migrations are current and every role of the node runs',
        description: '503 with the reason (`statusCode`, `name: not_ready`, `message`, `status`, `checks`) while starting, stopping or failing.',
        addition: true,
        response: {
          status: 200,
          schema: object({
            status: constant('ready'),
            checks: object({ database: string(), migrations: string(), roles: ROLES_SCHEMA }),
          }),
        },
      },
      async handler() {
        const roles = node.roles();
        const checks = { ...(await databaseCheck(db)), roles };
        const phase = node.phase();
        const failing = [
          ...(phase === 'ready' ? [] : [phase]),
          ...(checks.database === 'ok' ? [] : [`database ${checks.database}`]),
          ...(checks.migrations === 'ok' || checks.migrations === 'unknown' ? [] : [`migrations ${checks.migrations}`]),
          ...Object.entries(roles)
            .filter(([, state]) => state !== 'running')
            .map(([role, state]) => `${role} ${state}`),
        ];
        if (failing.length === 0) return { body: { status: 'ready', checks } };
        return { status: 503, body: { statusCode: 503, name: 'not_ready', message: `Not ready: ${failing.join('; ')}.`, status: phase, checks } };
      },
    },
  ];
}
