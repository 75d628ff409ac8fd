// What others report of a domain, on its page under its own settings: DMARC (domain-dmarc.tsx:
// the sources, pass rate, policy advice and reports), TLS reports (domain-tls-reports.tsx) and
// the DNS blocklists (domain-blocklists.tsx). One module that Domains.tsx loads lazily: the
// chart's library and these sections stay out of the shell.
import type { Domain } from '../api';
import { BlocklistChecks } from './domain-blocklists';
import { DmarcSection } from './domain-dmarc';
import { TlsReportsSection } from './domain-tls-reports';

export function DomainReports({ domain }: { domain: Domain }) {
  return (
    <>
      <DmarcSection domain={domain} />
      <TlsReportsSection domain={domain} />
      <section aria-labelledby="domain-blocklists-title">
        <h2 id="domain-blocklists-title">Blocklists</h2>
        <p>
          What the DNS blocklists said of {domain.name} and of the addresses it sends from, at their last check. Receivers that use a list refuse the mail of
          what it lists, or file it as spam.
        </p>
        <BlocklistChecks
          checks={domain.blocklists ?? []}
          empty="No blocklist checks yet: no blocklists configured (POSTLINE_DNSBLS for the outbound addresses, POSTLINE_DOMAIN_BLOCKLISTS for verified domains), or their first check has not run."
        />
      </section>
    </>
  );
}
