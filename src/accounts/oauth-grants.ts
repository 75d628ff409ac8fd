// GET /oauth/grants and DELETE /oauth/grants/:id (the SDK's oauthGrants.list / .revoke): on
// Resend, the access a user gave a third-party app through Resend's OAuth consent screen.
// Postline runs no OAuth authorization server, so no app can hold a grant; a third-party app
// is given an API key of its own instead (POST /api-keys: sending_access, restricted to a
// domain if wished), revoked with DELETE /api-keys/:id. Both routes answer that, as a 422
// validation_error (the answer Postline gives for what it does not offer), never a bare 404.
import { validation } from '../api/errors.js';
import { pageQuery } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, boolean, constant, nullable, object, string, uuid } from '../api/schema.js';

const NOT_AVAILABLE =
  'OAuth grants are not available in Postline: it runs no OAuth authorization server, so no app holds a grant. ' +
  'Give a third-party app an API key of its own (POST /api-keys, `sending_access` and a `domain_id` to narrow it) and revoke it with DELETE /api-keys/:id.';
const DESCRIPTION = `Not available in Postline: always answers 422 \`validation_error\`. ${NOT_AVAILABLE.split(': ')[1]}`;

const GRANT = object({
  id: string(),
  client_id: string(),
  scopes: array(string()),
  created_at: string(),
  revoked_at: nullable(string()),
  revoked_reason: nullable(string()),
  client: object({ name: string(), logo_uri: nullable(string()) }),
});

export function oauthGrantRoutes(): Route[] {
  return [
    {
      method: 'GET',
      url: '/oauth/grants',
      doc: {
        summary: 'List OAuth grants',
        description: DESCRIPTION,
        query: pageQuery(),
        response: {
          status: 200,
          description: "Resend's answer, for reference.",
          schema: object({ object: constant('list'), has_more: boolean(), data: array(GRANT) }),
        },
      },
      async handler() {
        throw validation(NOT_AVAILABLE);
      },
    },
    {
      method: 'DELETE',
      url: '/oauth/grants/:id',
      doc: {
        summary: 'Revoke an OAuth grant',
        description: DESCRIPTION,
        params: { id: uuid() },
        response: {
          status: 200,
          description: "Resend's answer, for reference.",
          schema: object({ object: constant('oauth_grant'), id: string(), revoked_at: string(), revoked_reason: string() }),
        },
      },
      async handler() {
        throw validation(NOT_AVAILABLE);
      },
    },
  ];
}
