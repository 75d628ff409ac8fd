// OAuth grants: the API access an account gives a third-party app, as a scoped, revocable
// credential. On Resend an app gets one through Resend's OAuth consent screen; Postline runs no
// OAuth authorization server, so the account issues it itself: `POST /oauth/grants` (Postline's
// addition, with a full-access key or the dashboard's session) names the app and its scopes and
// answers the token once, to hand to the app. The SDK's `oauthGrants.list` and `.revoke` (Resend's
// `GET /oauth/grants`, `DELETE /oauth/grants/:id`) list the grants, revoked ones included, and
// revoke one: its token is refused from then on, on every node at once (api-keys.ts
// authenticates grants beside keys and shares their cache and change notices), on the HTTP API
// and in SMTP submission alike.
import crypto from 'node:crypto';
import { notFound, validation } from '../api/errors.js';
import { isoTimestamp, isUuid, restTimestamp } from '../api/format.js';
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, constant, input, isoTime, type JsonSchema, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import { changeNoticeSql } from '../db/change-feed.js';
import type { Db } from '../db/database.js';
import { API_KEY_TOPIC, type ApiKeys } from './api-keys.js';
import { hashToken, newToken } from './tokens.js';

/** Resend's scopes: `emails:send` reaches the sending routes only, `full_access` every route. */
const SCOPES = ['full_access', 'emails:send'] as const;
const REVOKED_FROM_API = 'revoked_from_api';

const CLIENT = object({
  name: string({ description: 'The app the grant was given to.' }),
  logo_uri: nullable(string({ format: 'uri' })),
});
const GRANT = object({
  id: uuid(),
  client_id: string(),
  scopes: array(oneOfValues(SCOPES)),
  created_at: restTime(),
  revoked_at: nullable(restTime()),
  revoked_reason: nullable(string()),
  client: CLIENT,
  domain_id: nullable(uuid('Postline: the one domain an `emails:send` grant may send from; null for any.')),
});

/**
 * Text that is one line once trimmed (the app's name is stored trimmed): not blank, no line
 * break but around it. SINGLE_LINE_TEXT, but for those spaces; written so that no input makes
 * it backtrack more than linearly, since it runs before the length is checked.
 */
const TRIMMED_SINGLE_LINE = '^\\s*[^\\s\\u0000](?:[^\\r\\n\\u0000]*[^\\s\\u0000])?\\s*$';

/**
 * A string with `pattern`, refused in `message`'s words when it does not match; its other
 * failures (type, length) in the usual ones: the pattern's message in a schema of its own.
 */
const matching = (pattern: string, message: string, options: Omit<JsonSchema, 'type'>): JsonSchema => ({
  ...string(options),
  anyOf: [{ pattern, 'x-message': message }],
});

const NEW_GRANT_SCHEMA = input(
  {
    client: input(
      {
        name: matching(TRIMMED_SINGLE_LINE, 'be one line of text, not blank and without line breaks', { maxLength: 100 }),
        logo_uri: string({ format: 'uri', minLength: 1, maxLength: 2048, description: 'An http(s) URL.' }),
      },
      ['name'],
    ),
    client_id: matching('^[^\\r\\n\\u0000]*$', 'be one line of text, without line breaks', {
      minLength: 1,
      maxLength: 100,
      description: "The app's id, shared by its grants; a new UUID when absent.",
    }),
    scopes: array(oneOfValues(SCOPES), { minItems: 1, 'x-message': `be a non-empty array of ${SCOPES.map((s) => `"${s}"`).join(' | ')}` }),
    // A malformed id is a domain not found (404), as an unknown one: no uuid format here.
    domain_id: string({ minLength: 1, description: 'With `emails:send` alone: the id of the one domain the grant may send from.' }),
  },
  ['client', 'scopes'],
);

/** The body of POST /oauth/grants once it passed NEW_GRANT_SCHEMA. */
interface NewGrant {
  client: { name: string; logo_uri?: string };
  client_id?: string;
  scopes: (typeof SCOPES)[number][];
  domain_id?: string;
}

const COLUMNS = 'id, client_id, client_name, client_logo_uri, scopes, domain_id, created_at, revoked_at, revoked_reason';

interface GrantRow {
  id: string;
  client_id: string;
  client_name: string;
  client_logo_uri: string | null;
  scopes: (typeof SCOPES)[number][];
  domain_id: string | null;
  created_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

/** A revoked grant, with its token's hash in hex (the change notice's key). */
interface RevokedGrantRow {
  id: string;
  revoked_at: Date;
  revoked_reason: string;
  hash: string;
}

const grantView = (r: GrantRow) => ({
  id: r.id,
  client_id: r.client_id,
  scopes: r.scopes,
  created_at: restTimestamp(r.created_at),
  revoked_at: restTimestamp(r.revoked_at),
  revoked_reason: r.revoked_reason,
  client: { name: r.client_name, logo_uri: r.client_logo_uri },
  domain_id: r.domain_id,
});

export class OAuthGrants {
  constructor(
    private db: Db,
    private apiKeys: Pick<ApiKeys, 'forget'>,
  ) {}

  routes(): Route[] {
    return [this.createRoute(), this.listRoute(), this.revokeRoute()];
  }

  private createRoute(): Route {
    const db = this.db;
    return {
      method: 'POST',
      url: '/oauth/grants',
      doc: {
        summary: 'Grant a third-party app API access',
        description:
          'Postline: issues a grant to an app (no OAuth consent screen here: the account gives it). The token is answered only now; ' +
          "it authenticates as an API key of the grant's scope until the grant is revoked with DELETE /oauth/grants/:id.",
        body: NEW_GRANT_SCHEMA,
        response: {
          status: 201,
          schema: object({
            object: constant('oauth_grant'),
            id: uuid(),
            client_id: string(),
            token: string({ description: "The grant's token, shown only now." }),
          }),
        },
        addition: true,
      },
      async handler({ principal, body }) {
        const fields = body as NewGrant;
        const client = clientOf(fields.client);
        const scopes = [...new Set(fields.scopes)];
        const clientId = fields.client_id ?? crypto.randomUUID();
        const domainId = fields.domain_id;
        if (domainId !== undefined) {
          if (scopes.includes('full_access')) throw validation('The `domain_id` field can only be used with the `emails:send` scope alone.');
          if (!isUuid(domainId) || !(await db.one('SELECT 1 FROM domains WHERE id = $1 AND account_id = $2', [domainId, principal.accountId]))) {
            throw notFound('Domain');
          }
        }
        const id = crypto.randomUUID();
        const token = newToken();
        await db.query(
          `INSERT INTO oauth_grants (id, account_id, client_id, client_name, client_logo_uri, scopes, domain_id, token_hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [id, principal.accountId, clientId, client.name, client.logoUri ?? null, scopes, domainId ?? null, hashToken(token)],
        );
        return { status: 201, body: { object: 'oauth_grant', id, client_id: clientId, token } };
      },
    };
  }

  private listRoute(): Route {
    const db = this.db;
    return {
      method: 'GET',
      url: '/oauth/grants',
      doc: { ...listDoc('List OAuth grants', GRANT), description: 'The grants of this account, newest first, revoked ones included.' },
      async handler({ principal, query }) {
        const page = parsePage(query);
        const { rows, hasMore } = await listPage<GrantRow>(db, {
          table: 'oauth_grants',
          columns: COLUMNS,
          where: 'account_id = $1',
          params: [principal.accountId],
          page,
        });
        return { body: envelope(rows.map(grantView), hasMore) };
      },
    };
  }

  private revokeRoute(): Route {
    const db = this.db;
    const apiKeys = this.apiKeys;
    return {
      method: 'DELETE',
      url: '/oauth/grants/:id',
      doc: {
        summary: 'Revoke an OAuth grant',
        description: 'Its token is refused from now on. Revoking a revoked grant answers that revocation again.',
        // Resend names the parameter `oauth_grant_id` in its words.
        params: { id: { ...uuid(), 'x-error': { name: 'validation_error', message: 'The `oauth_grant_id` must be a valid UUID.' } } },
        response: {
          status: 200,
          schema: object({ object: constant('oauth_grant'), id: uuid(), revoked_at: isoTime(), revoked_reason: string() }),
        },
      },
      async handler({ principal, params }) {
        // The notice goes out with the UPDATE's commit: every node forgets the token at once.
        const row = await db.one<RevokedGrantRow>(
          `WITH revoked AS (
             UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, now()), revoked_reason = COALESCE(revoked_reason, $3)
              WHERE id = $1 AND account_id = $2 RETURNING id, revoked_at, revoked_reason, token_hash)
           SELECT id, revoked_at, revoked_reason, encode(token_hash, 'hex') AS hash, ${changeNoticeSql(API_KEY_TOPIC, "encode(token_hash, 'hex')")} FROM revoked`,
          [params.id, principal.accountId, REVOKED_FROM_API],
        );
        if (!row) throw notFound('OAuth grant');
        apiKeys.forget(row.hash);
        return { body: { object: 'oauth_grant', id: row.id, revoked_at: isoTimestamp(row.revoked_at), revoked_reason: row.revoked_reason } };
      },
    };
  }
}

/** The app's name, trimmed, and its logo's URL, which must be http(s). */
function clientOf(client: NewGrant['client']): { name: string; logoUri: string | undefined } {
  const logoUri = client.logo_uri;
  if (logoUri !== undefined && !isWebUrl(logoUri)) throw validation('The `client.logo_uri` field must be an http or https URL.');
  return { name: client.name.trim(), logoUri };
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
