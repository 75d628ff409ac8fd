// Domain claims (src/domains/domain-claims.ts): taking a domain another account of this
// installation holds. Adding such a domain is refused ("has been registered already"), so the
// Domains page offers a claim there (POST /domains/claim); the claim's placeholder domain
// (`placeholder: true` on the domain) shows the TXT record to publish and "Verify claim"
// (GET /domains/:id/claim, POST /domains/:id/claim/verify), which moves the domain once found.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Answer, ApiFailure, api, type DomainClaim, type RequestBody } from '../api';
import { forgetList } from '../list-table';
import { CopyButton, ErrorMessage, formatTime } from '../components';
import { navigate } from '../router';

/** POST /domains' refusal of a name held already: by another account (claimable) or by this one (the claim says so). */
export const isHeldElsewhere = (error: unknown): boolean => error instanceof ApiFailure && error.status === 403 && /registered already/.test(error.message);

/** Under a refused "Add domain": start a claim of `name`, then open its placeholder. */
export function ClaimOffer({ name }: { name: string }) {
  const queryClient = useQueryClient();
  const claim = useMutation({
    mutationFn: () => api<Answer<'/domains/claim', 'post'>>('POST', '/domains/claim', { name } satisfies RequestBody<'/domains/claim', 'post'>),
    onSuccess: (started) => {
      queryClient.setQueryData(['domain-claim', started.domain_id], started);
      void queryClient.invalidateQueries({ queryKey: ['domains'] });
      navigate(`/domains/${started.domain_id}`);
    },
  });
  return (
    <div className="notice">
      <p>
        If another account of this Postline holds {name}, you can claim it: Postline gives you a TXT record to publish at {name}, and the domain moves to your
        account once the record is found.
      </p>
      <button type="button" onClick={() => claim.mutate()} disabled={claim.isPending}>
        {claim.isPending ? 'Claiming…' : `Claim ${name}`}
      </button>
      <ErrorMessage error={claim.error} />
    </div>
  );
}

/** On a placeholder's page: the claim's status, the TXT record to publish, and "Verify claim". */
export function DomainClaimSection({ domainId }: { domainId: string }) {
  const queryClient = useQueryClient();
  const path = `/domains/${encodeURIComponent(domainId)}/claim`;
  const claim = useQuery({ queryKey: ['domain-claim', domainId], queryFn: () => api<DomainClaim>('GET', path) });
  const verify = useMutation({
    mutationFn: () => api<Answer<'/domains/{id}/claim/verify', 'post'>>('POST', `${path}/verify`),
    onSuccess: (checked) => {
      queryClient.setQueryData(['domain-claim', domainId], checked);
      // Completed: the placeholder is now the account's domain, with its own records to verify.
      forgetList(queryClient, ['domains']);
      return queryClient.invalidateQueries({ queryKey: ['domain', domainId] });
    },
  });
  const c = claim.data;
  return (
    <section aria-labelledby="domain-claim-title">
      <h2 id="domain-claim-title">Claim</h2>
      <ErrorMessage error={claim.error} />
      {c && (
        <>
          <p>
            Another account holds {c.name}. To prove the domain is yours, publish this TXT record at {c.record.name}, then verify the claim: the domain moves to
            your account, and its DNS records below are the ones to publish next.
          </p>
          <dl className="facts">
            <dt>Claim status</dt>
            <dd>
              <span className={`status status-${c.status}`}>{c.status.replaceAll('_', ' ')}</span>
            </dd>
            <dt>Started</dt>
            <dd>{formatTime(c.created_at)}</dd>
            <dt>Expires</dt>
            <dd>{formatTime(c.expires_at)}</dd>
          </dl>
          <div className="table-wrap">
            <table className="records">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Name</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td data-label="Type">{c.record.type}</td>
                  <td data-label="Name">
                    <code>{c.record.name}</code>
                  </td>
                  <td data-label="Value">
                    <div className="copy-row">
                      <code className="value" data-testid="claim-record">
                        {c.record.value}
                      </code>
                      <CopyButton value={c.record.value} label="Copy the claim's TXT value" />
                    </div>
                  </td>
                </tr>
              </tbody>
            </table>
          </div>
          {c.blocked_reason === 'pending_scheduled_emails' && (
            <p className="notice">The account that holds {c.name} still has mail from it waiting to be sent: the claim completes once that has gone.</p>
          )}
          {c.failure_reason && <p className="hint">Last check: {c.failure_reason}</p>}
          <div className="row">
            <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
              {verify.isPending ? 'Verifying…' : 'Verify claim'}
            </button>
            {verify.isSuccess && !verify.isPending && <span role="status">Checked: {verify.data.status}</span>}
          </div>
          <ErrorMessage error={verify.error} />
        </>
      )}
    </section>
  );
}
