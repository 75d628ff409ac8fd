// POST /domains/claim, GET /domains/:id/claim and POST /domains/:id/claim/verify (the SDK's
// domains.claims.*): on Resend, taking over a domain another team holds, with a TXT record as
// proof. A domain name is unique in a Postline installation, so the same would mean moving a
// domain between its accounts; that move is not offered yet (it must settle the old account's
// queued and scheduled mail from the domain, its API keys restricted to it, its DKIM key and
// inbound mail first). The routes answer so, as a 422 validation_error (the answer Postline
// gives for what it does not offer), never a bare 404: the operator moves a domain by deleting
// it in one account and adding it in the other.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { boolean, constant, input, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';

const NOT_AVAILABLE =
  'Domain claims are not available in Postline: a domain moves between accounts of an installation when it is deleted in one (DELETE /domains/:id) and added in the other (POST /domains).';
const DESCRIPTION = `Not available in Postline: always answers 422 \`validation_error\`. ${NOT_AVAILABLE.split(': ')[1]}`;

const STATUSES = ['pending', 'verified', 'completed', 'blocked', 'expired', 'superseded', 'canceled', 'failed'];
const CLAIM = object({
  object: constant('domain_claim'),
  id: uuid(),
  name: string(),
  status: oneOfValues(STATUSES),
  domain_id: nullable(uuid()),
  region: nullable(string()),
  record: object({ type: constant('TXT'), name: string(), value: string(), ttl: constant('Auto') }),
  blocked_reason: nullable(oneOfValues(['grace_period', 'recent_owner_activity', 'pending_scheduled_emails'])),
  failure_reason: nullable(string()),
  created_at: string(),
  expires_at: string(),
});
const reference = (status: number) => ({ status, description: "Resend's answer, for reference.", schema: CLAIM });

export function domainClaimRoutes(): Route[] {
  const refuse = async (): Promise<never> => {
    throw validation(NOT_AVAILABLE);
  };
  return [
    {
      method: 'POST',
      url: '/domains/claim',
      doc: {
        summary: 'Claim a domain',
        description: DESCRIPTION,
        body: input(
          {
            name: string(),
            region: string(),
            custom_return_path: string(),
            open_tracking: boolean(),
            click_tracking: boolean(),
            tracking_subdomain: string(),
          },
          ['name'],
        ),
        response: reference(201),
      },
      handler: refuse,
    },
    {
      method: 'GET',
      url: '/domains/:id/claim',
      doc: { summary: "Retrieve a domain's claim", description: DESCRIPTION, params: { id: uuid() }, response: reference(200) },
      handler: refuse,
    },
    {
      method: 'POST',
      url: '/domains/:id/claim/verify',
      doc: { summary: "Verify a domain's claim", description: DESCRIPTION, params: { id: uuid() }, response: reference(200) },
      handler: refuse,
    },
  ];
}
