// Shared by the DMARC and TLS report tests: reports as receivers and senders write them (a
// Google-style DMARC aggregate report, gzipped XML; an RFC 8460 TLS report, gzipped JSON),
// mailed to Postline's SMTP port as a remote MTA would (inbound/support.ts).
import { gzipSync } from 'node:zlib';
import { composeMessage, deliverInbound, startInboundTest } from '../inbound/support.js';
import { createVerifiedDomain, publishRecords } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest } from '../support/postline.js';
import { LOOPBACK_ENDPOINTS, WebhookReceiver, subscribe } from '../webhooks/support.js';

export { createVerifiedDomain, deliverInbound, eventually, LOOPBACK_ENDPOINTS, publishRecords, rawRequest, startInboundTest, subscribe, WebhookReceiver };

interface ReportRow {
  ip: string;
  count: number;
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
  disposition?: string;
}

/** A DMARC aggregate report as Google writes it (RFC 7489 appendix C). */
export function googleAggregateReport(options: { domain: string; reportId: string; begin: Date; end: Date; rows: ReportRow[] }): string {
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  const records = options.rows
    .map(
      (r) => `  <record>
    <row>
      <source_ip>${r.ip}</source_ip>
      <count>${r.count}</count>
      <policy_evaluated>
        <disposition>${r.disposition ?? 'none'}</disposition>
        <dkim>${r.dkim}</dkim>
        <spf>${r.spf}</spf>
      </policy_evaluated>
    </row>
    <identifiers>
      <header_from>${options.domain}</header_from>
    </identifiers>
    <auth_results>
      <dkim>
        <domain>${options.domain}</domain>
        <result>${r.dkim}</result>
        <selector>postline</selector>
      </dkim>
      <spf>
        <domain>send.${options.domain}</domain>
        <result>${r.spf}</result>
      </spf>
    </auth_results>
  </record>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>google.com</org_name>
    <email>noreply-dmarc-support@google.com</email>
    <extra_contact_info>https://support.google.com/a/answer/2466580</extra_contact_info>
    <report_id>${options.reportId}</report_id>
    <date_range>
      <begin>${seconds(options.begin)}</begin>
      <end>${seconds(options.end)}</end>
    </date_range>
  </report_metadata>
  <policy_published>
    <domain>${options.domain}</domain>
    <adkim>r</adkim>
    <aspf>r</aspf>
    <p>none</p>
    <sp>none</sp>
    <pct>100</pct>
    <np>none</np>
  </policy_published>
${records}
</feedback>
`;
}

/** One message carrying `count` reports (each its own gzipped attachment, its own report id): a flood in one go. */
export function floodMail(options: { domain: string; to: string; count: number; begin: Date; end: Date }): Promise<Buffer> {
  const attachments = Array.from({ length: options.count }, (_, i) => ({
    filename: `google.com!${options.domain}!flood-${i}.xml.gz`,
    contentType: 'application/gzip',
    content: gzipSync(
      googleAggregateReport({
        domain: options.domain,
        reportId: `flood-${i}`,
        begin: options.begin,
        end: options.end,
        rows: [{ ip: '203.0.113.1', count: 1, dkim: 'fail', spf: 'fail' }],
      }),
    ),
  }));
  return composeMessage({ from: 'noreply-dmarc-support@google.com', to: options.to, subject: 'Many reports', text: 'Reports.', attachments });
}

/** The message Google mails it in: the XML gzipped, as an application/gzip attachment. */
export function dmarcReportMail(xml: string, options: { domain: string; reportId: string; to: string; begin: Date; end: Date }): Promise<Buffer> {
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  return composeMessage({
    from: 'noreply-dmarc-support@google.com',
    to: options.to,
    subject: `Report domain: ${options.domain} Submitter: google.com Report-ID: ${options.reportId}`,
    text: 'This is an aggregate report from google.com.',
    attachments: [
      {
        filename: `google.com!${options.domain}!${seconds(options.begin)}!${seconds(options.end)}.xml.gz`,
        contentType: 'application/gzip',
        content: gzipSync(xml),
      },
    ],
  });
}

/** An SMTP TLS report (RFC 8460 §4), gzipped, as application/tlsrpt+gzip. */
export function tlsReportMail(options: { domain: string; reportId: string; to: string; begin: Date; end: Date }): Promise<Buffer> {
  const report = {
    'organization-name': 'Sender Org',
    'date-range': { 'start-datetime': options.begin.toISOString(), 'end-datetime': options.end.toISOString() },
    'contact-info': 'tlsrpt@sender.example',
    'report-id': options.reportId,
    policies: [
      {
        policy: {
          'policy-type': 'sts',
          'policy-string': ['version: STSv1', 'mode: enforce', `mx: mx.${options.domain}`, 'max_age: 86400'],
          'policy-domain': options.domain,
          'mx-host': [`mx.${options.domain}`],
        },
        summary: { 'total-successful-session-count': 120, 'total-failure-session-count': 4 },
        'failure-details': [
          {
            'result-type': 'certificate-expired',
            'sending-mta-ip': '198.51.100.20',
            'receiving-mx-hostname': `mx.${options.domain}`,
            'receiving-ip': '203.0.113.9',
            'failed-session-count': 3,
            'failure-reason-code': 'X509_V_ERR_CERT_HAS_EXPIRED',
          },
          { 'result-type': 'starttls-not-supported', 'receiving-mx-hostname': `mx2.${options.domain}`, 'failed-session-count': 1 },
        ],
      },
    ],
  };
  return composeMessage({
    from: 'tlsrpt@sender.example',
    to: options.to,
    subject: `Report Domain: ${options.domain} Submitter: sender.example Report-ID: <${options.reportId}>`,
    headers: { 'TLS-Report-Domain': options.domain, 'TLS-Report-Submitter': 'sender.example' },
    text: 'This is an aggregate TLS report from sender.example.',
    attachments: [
      {
        filename: `sender.example!${options.domain}!${Math.floor(options.begin.getTime() / 1000)}!${Math.floor(options.end.getTime() / 1000)}.json.gz`,
        contentType: 'application/tlsrpt+gzip',
        content: gzipSync(JSON.stringify(report)),
      },
    ],
  });
}
