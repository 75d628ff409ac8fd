// API keys: authentication of every request (by an API key or an OAuth grant's token:
// oauth-grants.ts), and the /api-keys routes.
import crypto from 'node:crypto';
import { ApiError, notFound } from '../api/errors.js';
import { restTimestamp, isUuid } from '../api/format.js';
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Principal, Route } from '../api/route.js';
import { deletedObject, input, type JsonSchema, nullable, object, objectId, restTime, string, uuid } from '../api/schema.js';
import { type ChangeFeed, changeNoticeSql } from '../db/change-feed.js';
import type { Db } from '../db/database.js';
import { RevocableCache } from '../cluster/revocable-cache.js';
import { hashToken, newToken } from './tokens.js';

/** Notices of deleted keys and revoked grants (db/change-feed.ts), keyed by the token's hash in hex. */
export const API_KEY_TOPIC = 'api_key';
/** A key deleted on another node stops working within this time when the change feed is down; at once otherwise. */
const CACHE_MS = 2_000;
const TOUCH_MS = 60_000; // last_used_at is written at most this often per key

const PERMISSIONS = ['full_access', 'sending_access'] as const;
type Permission = (typeof PERMISSIONS)[number];
const NAME_SCHEMA = string({ maxLength: 50 });
/** Not a check: another value is Resend's invalid_access (permissionOf), not validation_error. */
const PERMISSION_SCHEMA: JsonSchema = {
  description: `${PERMISSIONS.map((p) => `"${p}"`).join(' | ')}; another value is refused with \`invalid_access\`.`,
  default: 'full_access',
  examples: PERMISSIONS,
};

/** A key, or an unrevoked grant acting as one, found by its token's hash. */
interface TokenOwnerRow {
  id: string;
  account_id: string;
  permission: Principal['permission'];
  domain_id: string | null;
  is_key: boolean;
}

/** A key as GET /api-keys lists it. */
interface ApiKeySummaryRow {
  id: string;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

interface ApiKeyIdRow {
  id: string;
}

/** A deleted key, with its token's hash in hex (the change notice's key). */
interface DeletedKeyRow {
  id: string;
  hash: string;
}

/** The body of POST /api-keys once it passed its schema (api/request-schema.ts). */
interface NewApiKey {
  name: string;
  /** Not checked by the schema: permissionOf. */
  permission?: unknown;
  domain_id?: string;
}

/** The permission asked for, full_access when none. */
function permissionOf(permission: unknown): Permission {
  if (permission === undefined) return 'full_access';
  if (PERMISSIONS.includes(permission as Permission)) return permission as Permission;
  throw new ApiError('invalid_access', 'Access must be "full_access" | "sending_access"');
}

export class ApiKeys {
  private cache: RevocableCache<Principal | null>;
  private touched = new Map<string, number>();

  constructor(
    private db: Db,
    changes?: ChangeFeed,
  ) {
    this.cache = new RevocableCache(changes, API_KEY_TOPIC, { ttlMs: CACHE_MS, maxEntries: 10_000 });
  }

  /**
   * The principal for a bearer token, or null when no such key or unrevoked grant exists. A
   * grant acts as a key of its scope would (`full_access`, else sending_access), and its id
   * stands as the key's id (request logs' `api_key_id`).
   */
  async authenticate(token: string): Promise<Principal | null> {
    const hash = hashToken(token);
    const key = hash.toString('hex');
    const hit = await this.cache.get(key);
    if (hit !== undefined) return hit;
    const read = this.cache.begin();
    const row = await this.db.one<TokenOwnerRow>(
      `SELECT id, account_id, permission, domain_id, true AS is_key FROM api_keys WHERE token_hash = $1
       UNION ALL
       SELECT id, account_id, CASE WHEN 'full_access' = ANY (scopes) THEN 'full_access' ELSE 'sending_access' END, domain_id, false
         FROM oauth_grants WHERE token_hash = $1 AND revoked_at IS NULL`,
      [hash],
    );
    const principal: Principal | null = row ? { accountId: row.account_id, apiKeyId: row.id, permission: row.permission, domainId: row.domain_id } : null;
    this.cache.set(key, principal, read, { absent: !principal });
    if (row?.is_key) this.touch(row.id, read.at);
    return principal;
  }

  /** Drops a token from this node's cache at once (other nodes hear the change notice). */
  forget(tokenHashHex: string): void {
    this.cache.delete(tokenHashHex);
  }

  private touch(id: string, now: number): void {
    if (now - (this.touched.get(id) ?? 0) < TOUCH_MS) return;
    this.touched.set(id, now);
    this.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [id]).catch(() => {});
  }

  routes(): Route[] {
    const db = this.db;
    return [
      {
        method: 'POST',
        url: '/api-keys',
        doc: {
          summary: 'Create an API key',
          body: input(
            {
              name: NAME_SCHEMA,
              permission: PERMISSION_SCHEMA,
              // A malformed id is a domain not found (404), as an unknown one: no uuid format here.
              domain_id: string({ minLength: 1, description: 'sending_access only: the id of the one domain the key may send from.' }),
            },
            ['name'],
          ),
          response: { status: 201, schema: object({ id: uuid(), token: string({ description: 'The key itself, shown only now.' }) }) },
        },
        async handler({ principal, body }) {
          const { name, permission: asked, domain_id: domainId } = body as NewApiKey;
          const permission = permissionOf(asked);
          if (domainId !== undefined) {
            if (permission !== 'sending_access') {
              throw new ApiError('validation_error', 'The `domain_id` field can only be used with `sending_access`.');
            }
            if (!isUuid(domainId) || !(await db.one('SELECT 1 FROM domains WHERE id = $1 AND account_id = $2', [domainId, principal.accountId]))) {
              throw notFound('Domain');
            }
          }
          const id = crypto.randomUUID();
          const token = newToken();
          await db.query('INSERT INTO api_keys (id, account_id, name, token_hash, permission, domain_id) VALUES ($1, $2, $3, $4, $5, $6)', [
            id,
            principal.accountId,
            name,
            hashToken(token),
            permission,
            domainId ?? null,
          ]);
          return { status: 201, body: { id, token } };
        },
      },
      {
        method: 'GET',
        url: '/api-keys',
        doc: listDoc('List API keys', object({ id: uuid(), name: string(), created_at: restTime(), last_used_at: nullable(restTime()) }), {
          defaultLimit: 100,
        }),
        async handler({ principal, query }) {
          const page = parsePage(query, { defaultLimit: 100 });
          const { rows, hasMore } = await listPage<ApiKeySummaryRow>(db, {
            table: 'api_keys',
            columns: 'id, name, created_at, last_used_at',
            where: 'account_id = $1',
            params: [principal.accountId],
            page,
          });
          return {
            body: envelope(
              rows.map((r) => ({ id: r.id, name: r.name, created_at: restTimestamp(r.created_at), last_used_at: restTimestamp(r.last_used_at) })),
              hasMore,
            ),
          };
        },
      },
      {
        method: 'PATCH',
        url: '/api-keys/:id',
        doc: {
          summary: 'Rename an API key',
          params: { id: uuid() },
          body: input({ name: NAME_SCHEMA }),
          response: { status: 200, schema: objectId('api_key') },
        },
        async handler({ principal, params, body }) {
          const { name } = body as { name?: string };
          const row = await db.one<ApiKeyIdRow>('UPDATE api_keys SET name = COALESCE($3, name) WHERE id = $1 AND account_id = $2 RETURNING id', [
            params.id,
            principal.accountId,
            name ?? null,
          ]);
          if (!row) throw notFound('API key');
          return { body: { object: 'api_key', id: row.id } };
        },
      },
      {
        method: 'DELETE',
        url: '/api-keys/:id',
        doc: { summary: 'Delete an API key', params: { id: uuid() }, response: { status: 200, schema: deletedObject('api_key') } },
        handler: async ({ principal, params }) => {
          // The notice goes out with the DELETE's commit: every node forgets the key at once.
          const row = await db.one<DeletedKeyRow>(
            `WITH gone AS (DELETE FROM api_keys WHERE id = $1 AND account_id = $2 RETURNING id, token_hash)
             SELECT id, encode(token_hash, 'hex') AS hash, ${changeNoticeSql(API_KEY_TOPIC, "encode(token_hash, 'hex')")} FROM gone`,
            [params.id, principal.accountId],
          );
          if (!row) throw notFound('API key');
          this.cache.delete(row.hash);
          return { body: { object: 'api_key', id: row.id, deleted: true } };
        },
      },
    ];
  }
}
