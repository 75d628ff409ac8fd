// Reading report mail as the server receives it: whole MIME messages carrying each reporter's
// layout (test/fixtures/dmarc-reports/, from real reports: its README.md) as each content type
// reporters use, parsed by postal-mime with the server's options, then readReportMail. Also the
// oddities of real archives (Mimecast's gzip, several members, a zip of several files), duplicate
// parts, and mail that carries no report. Hostile input: hostile-reports.unit.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Email } from 'postal-mime';
import { readReportMail } from '../../src/dmarc-reports/read-report-mail.js';
import type { DmarcAggregateReport, SmtpTlsReport } from '../../src/dmarc-reports/report-types.js';
import { gzip, type Part, reportMail, sample, singlePartMail, zip } from '../fixtures/dmarc-reports/report-mail.js';

interface Expected {
  schema: DmarcAggregateReport['schema'];
  orgName: string;
  reportId: string;
  policyDomain: string;
  begin: string;
  rows: { sourceIp: string; count: number; disposition: string; dkim: number; spf: number }[];
}

const LAYOUTS: Record<string, Expected> = {
  google: {
    schema: 'draft',
    orgName: 'google.com',
    reportId: '949348866075514174',
    policyDomain: 'example.com',
    begin: '2019-02-12T00:00:00.000Z',
    rows: [
      { sourceIp: '198.51.100.102', count: 1, disposition: 'reject', dkim: 0, spf: 1 },
      { sourceIp: '2001:db8::1f', count: 14, disposition: 'none', dkim: 1, spf: 1 },
    ],
  },
  outlook: {
    schema: '1.0',
    orgName: 'Outlook.com',
    reportId: 'cfeafefe4129445e8c81018bd9177197',
    policyDomain: 'example.com',
    begin: '2024-03-30T00:00:00.000Z',
    rows: [{ sourceIp: '203.0.113.149', count: 1, disposition: 'none', dkim: 0, spf: 1 }],
  },
  yahoo: {
    schema: 'draft',
    orgName: 'Yahoo',
    reportId: '1665623424.142074',
    policyDomain: 'example.net',
    begin: '2022-10-12T00:00:00.000Z',
    rows: [{ sourceIp: '192.0.2.229', count: 1, disposition: 'none', dkim: 1, spf: 1 }],
  },
  mimecast: {
    schema: 'draft',
    orgName: 'Mimecast',
    reportId: '157a5fe30ec76f4bc0d8bccfc96c118a167a1280fee7c7465af5115e73082e5e',
    policyDomain: 'example.org',
    begin: '2023-08-30T00:00:00.000Z',
    rows: [{ sourceIp: '198.51.100.22', count: 1, disposition: 'none', dkim: 1, spf: 1 }],
  },
  draft: {
    schema: 'draft',
    orgName: 'acme.example',
    reportId: '9391651994964116463',
    policyDomain: 'example.com',
    begin: '2012-04-28T00:00:00.000Z',
    rows: [{ sourceIp: '192.0.2.94', count: 2, disposition: 'none', dkim: 1, spf: 1 }],
  },
  dmarcbis: {
    schema: 'dmarcbis',
    orgName: 'Sample Reporter',
    reportId: '3v98abbp8ya9n3va8yr8oa3ya',
    policyDomain: 'example.com',
    begin: '1979-08-07T00:00:00.000Z',
    rows: [{ sourceIp: '192.0.2.123', count: 123, disposition: 'pass', dkim: 1, spf: 1 }],
  },
};

/** Each way reporters send the XML: as it is, gzip, zip, and as the message's only part. */
const PACKINGS: Record<string, (name: string, xml: Buffer) => Promise<Email>> = {
  'text/xml attachment': (name, xml) => reportMail([{ filename: `${name}.xml`, contentType: 'text/xml', content: xml }]),
  'application/xml attachment': (name, xml) => reportMail([{ filename: `${name}.xml`, contentType: 'application/xml', content: xml }]),
  'application/gzip attachment': (name, xml) => reportMail([{ filename: `${name}.xml.gz`, contentType: 'application/gzip', content: gzip(xml) }]),
  '.xml.gz as application/octet-stream': (name, xml) =>
    reportMail([{ filename: `${name}.xml.gz`, contentType: 'application/octet-stream', content: gzip(xml) }]),
  'application/zip attachment': (name, xml) =>
    reportMail([{ filename: `${name}.zip`, contentType: 'application/zip', content: zip({ [`${name}.xml`]: xml }) }]),
  '.zip as application/x-zip-compressed': (name, xml) =>
    reportMail([{ filename: `${name}.zip`, contentType: 'application/x-zip-compressed', content: zip({ [`${name}.xml`]: xml }) }]),
  'single-part application/gzip body': (name, xml) => singlePartMail({ filename: `${name}.xml.gz`, contentType: 'application/gzip', content: gzip(xml) }),
  'single-part text/xml body': (_name, xml) => singlePartMail({ contentType: 'text/xml', content: xml }),
  'single-part application/zip body, unnamed': (name, xml) => singlePartMail({ contentType: 'application/zip', content: zip({ [`${name}.xml`]: xml }) }),
};

function onlyDmarc(reading: ReturnType<typeof readReportMail>): DmarcAggregateReport {
  assert.ok(reading, 'the message was not recognised as report mail');
  assert.deepEqual(reading.unreadable, []);
  assert.equal(reading.reports.length, 1, JSON.stringify(reading.reports.map((r) => r.reportId)));
  const report = reading.reports[0]!;
  assert.equal(report.kind, 'dmarc');
  return report as DmarcAggregateReport;
}

describe('reading DMARC aggregate reports as reporters send them', () => {
  for (const [layout, expected] of Object.entries(LAYOUTS)) {
    for (const [packing, build] of Object.entries(PACKINGS)) {
      it(`${layout}'s layout as ${packing}`, async () => {
        const report = onlyDmarc(readReportMail(await build(layout, sample(layout))));
        assert.equal(report.schema, expected.schema);
        assert.equal(report.orgName, expected.orgName);
        assert.equal(report.reportId, expected.reportId);
        assert.equal(report.policyDomain, expected.policyDomain);
        assert.equal(report.periodBegin.toISOString(), expected.begin);
        assert.equal(report.periodEnd.getTime() > report.periodBegin.getTime(), true);
        assert.deepEqual(
          report.rows.map((r) => ({ sourceIp: r.sourceIp, count: r.count, disposition: r.disposition, dkim: r.dkim.length, spf: r.spf.length })),
          expected.rows,
        );
        assert.deepEqual(report.problems, []);
      });
    }
  }

  it("reads each layout's fields: policy, identifiers, auth results", async () => {
    const outlook = onlyDmarc(readReportMail(await PACKINGS['application/gzip attachment']!('outlook', sample('outlook'))));
    assert.deepEqual(outlook.policy, { p: 'none', sp: 'none', pct: 100, adkim: 'r', aspf: 'r', np: null });
    assert.equal(outlook.reporterEmail, 'dmarcreport@microsoft.com');
    assert.deepEqual(
      { ...outlook.rows[0]!, dkim: undefined, overrides: undefined },
      {
        sourceIp: '203.0.113.149',
        count: 1,
        disposition: 'none',
        dkimAligned: 'fail',
        spfAligned: 'fail',
        headerFrom: 'example.com',
        envelopeFrom: 'example.com',
        envelopeTo: 'hotmail.com',
        dkim: undefined,
        spf: [{ domain: 'example.com', scope: 'mfrom', result: 'fail' }],
        overrides: undefined,
      },
    );
    const bis = onlyDmarc(readReportMail(await PACKINGS['text/xml attachment']!('dmarcbis', sample('dmarcbis'))));
    assert.deepEqual(bis.policy, { p: 'quarantine', sp: 'none', pct: null, adkim: null, aspf: null, np: 'none' });
    assert.deepEqual(bis.rows[0]!.dkim, [{ domain: 'example.com', selector: 'abc123', result: 'pass' }]);
    // The draft era's <identities> is read as <identifiers>.
    const draft = onlyDmarc(readReportMail(await PACKINGS['text/xml attachment']!('draft', sample('draft'))));
    assert.equal(draft.rows[0]!.headerFrom, 'example.com');
    const google = onlyDmarc(readReportMail(await PACKINGS['application/zip attachment']!('google', sample('google'))));
    assert.deepEqual(google.rows[1]!.dkim, [{ domain: 'example.com', selector: 'pl1', result: 'pass' }]);
  });

  it('reads a DMARCbis report written with a namespace prefix', async () => {
    const prefixed = sample('dmarcbis')
      .toString()
      .replace('<feedback xmlns=', '<dmarc:feedback xmlns:dmarc=')
      .replaceAll(/<(\/?)(?!dmarc:)([a-z_]+)>/g, '<$1dmarc:$2>')
      .replace('</feedback>', '</dmarc:feedback>');
    const report = onlyDmarc(readReportMail(await reportMail([{ filename: 'r.xml', contentType: 'text/xml', content: prefixed }])));
    assert.equal(report.schema, 'dmarcbis');
    assert.equal(report.rows[0]!.count, 123);
  });

  it('reads the XML when it is the text/plain body itself', async () => {
    const mail = await singlePartMail({ contentType: 'text/plain; charset=utf-8', content: sample('yahoo') });
    assert.equal(onlyDmarc(readReportMail(mail)).reportId, '1665623424.142074');
  });

  it("reads Mimecast's gzip, which has CR LF after its end, without a word", async () => {
    const weird = Buffer.concat([gzip(sample('mimecast')), Buffer.from('\r\n')]);
    const mail = await singlePartMail({
      filename: 'mimecast.org!example.org!1693353600!1693439999!157a.xml.gz',
      contentType: 'application/gzip',
      content: weird,
    });
    assert.equal(onlyDmarc(readReportMail(mail)).orgName, 'Mimecast');
  });

  it('joins a gzip of several members, and says what follows the last one when it is not padding', async () => {
    const xml = sample('google');
    const members = Buffer.concat([gzip(xml.subarray(0, 700)), gzip(xml.subarray(700)), Buffer.from('garbage')]);
    const report = onlyDmarc(readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: members }])));
    assert.equal(report.rows.length, 2);
    assert.deepEqual(report.problems, ['7 bytes after the gzip data ignored']);
  });

  it('reads every report of a zip holding several, leaving other files and macOS metadata aside', async () => {
    const content = zip({ 'a.xml': sample('google'), 'b.xml': sample('yahoo'), 'README.txt': 'not a report', '__MACOSX/._a.xml': 'junk' });
    const reading = readReportMail(await reportMail([{ filename: 'reports.zip', contentType: 'application/zip', content }]));
    assert.deepEqual(reading?.unreadable, []);
    assert.deepEqual(reading?.reports.map((r) => r.orgName).sort(), ['Yahoo', 'google.com']);
  });

  it('reads a zip written as a stream (sizes in data descriptors after each entry)', async () => {
    const content = sample('google-streamed.zip');
    assert.equal(content.readUInt16LE(6) & 8, 8, 'the sample has data descriptors');
    const report = onlyDmarc(readReportMail(await reportMail([{ filename: 'google.zip', contentType: 'application/zip', content }])));
    assert.equal(report.rows.length, 2);
  });

  it('reads several report attachments of one message, and each report once when repeated', async () => {
    const parts: Part[] = [
      { filename: 'g.xml.gz', contentType: 'application/gzip', content: gzip(sample('google')) },
      { filename: 'g-again.xml.gz', contentType: 'application/gzip', content: gzip(sample('google')) }, // byte for byte
      { filename: 'g.xml', contentType: 'text/xml', content: sample('google') }, // the same report, unpacked
      { filename: 'o.xml', contentType: 'text/xml', content: sample('outlook') },
    ];
    const reading = readReportMail(await reportMail(parts));
    assert.deepEqual(
      reading?.reports.map((r) => r.orgName),
      ['google.com', 'Outlook.com'],
    );
  });
});

describe('reading SMTP TLS reports', () => {
  const check = (reading: ReturnType<typeof readReportMail>): SmtpTlsReport => {
    assert.ok(reading);
    assert.deepEqual(reading.unreadable, []);
    assert.equal(reading.reports.length, 1);
    assert.equal(reading.reports[0]!.kind, 'tls');
    assert.deepEqual(reading.reports[0]!.problems, []);
    return reading.reports[0] as SmtpTlsReport;
  };

  it("Google's, as application/tlsrpt+gzip (RFC 8460 §5.3)", async () => {
    const name = 'google.com!example.com!1725321600!1725407999!001.json.gz';
    const report = check(readReportMail(await reportMail([{ filename: name, contentType: 'application/tlsrpt+gzip', content: gzip(sample('tls-google')) }])));
    assert.equal(report.orgName, 'Google Inc.');
    assert.equal(report.reportId, '2024-09-03T00:00:00Z_example.com');
    assert.equal(report.contact, 'smtp-tls-reporting@google.com');
    assert.equal(report.periodBegin.toISOString(), '2024-09-03T00:00:00.000Z');
    assert.deepEqual(report.policies[0], {
      policyType: 'sts',
      policyDomain: 'example.com',
      mxHosts: ['mx.example.com'],
      successfulSessions: 48,
      failedSessions: 3,
      failures: [
        {
          resultType: 'validation-failure',
          sendingMtaIp: '198.51.100.201',
          receivingMxHostname: 'mx.example.com',
          receivingIp: '203.0.113.41',
          failedSessions: 2,
          failureReason: null,
        },
        {
          resultType: 'validation-failure',
          sendingMtaIp: '198.51.100.176',
          receivingMxHostname: 'mx.example.com',
          receivingIp: '203.0.113.41',
          failedSessions: 1,
          failureReason: null,
        },
      ],
    });
  });

  it("Microsoft's, as application/tlsrpt+json, an STS and a TLSA policy", async () => {
    const report = check(
      readReportMail(await reportMail([{ filename: 'report.json', contentType: 'application/tlsrpt+json', content: sample('tls-microsoft') }])),
    );
    assert.equal(report.orgName, 'Microsoft Corporation');
    assert.deepEqual(
      report.policies.map((p) => [p.policyType, p.policyDomain, p.successfulSessions, p.failedSessions]),
      [
        ['sts', 'example.net', 2, 0],
        ['tlsa', 'example.net', 2, 0],
      ],
    );
  });

  it('a gzip of the JSON under another name, and the message as its only part', async () => {
    const octet = await reportMail([{ filename: 'tls.json.gz', contentType: 'application/octet-stream', content: gzip(sample('tls-google')) }]);
    assert.equal(check(readReportMail(octet)).orgName, 'Google Inc.');
    const single = await singlePartMail({ filename: 'tls.json.gz', contentType: 'application/tlsrpt+gzip', content: gzip(sample('tls-microsoft')) });
    assert.equal(check(readReportMail(single)).orgName, 'Microsoft Corporation');
  });

  it('counts written as strings, a failure without its result type: read, and said', async () => {
    const json = JSON.parse(sample('tls-google').toString());
    json.policies[0].summary['total-successful-session-count'] = '48';
    json.policies[0]['failure-details'][1]['result-type'] = undefined;
    const reading = readReportMail(await reportMail([{ filename: 'r.json', contentType: 'application/tlsrpt+json', content: JSON.stringify(json) }]));
    const report = reading?.reports[0] as SmtpTlsReport;
    assert.equal(report.policies[0]!.successfulSessions, 48);
    assert.equal(report.policies[0]!.failures.length, 1);
    assert.deepEqual(report.problems, ['policy 1 failure 2: no result-type, skipped']);
  });
});

describe('mail that carries no report', () => {
  it('is null: plain text, a PDF, a zip of documents, an XML invoice, JSON that is not a TLS report, a broken zip', async () => {
    const cases: Part[][] = [
      [],
      [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: '%PDF-1.4 …' }],
      [{ filename: 'photos.zip', contentType: 'application/zip', content: zip({ 'a.jpg': new Uint8Array([0xff, 0xd8, 0xff]), 'b.docx': 'PK…' }) }],
      [{ filename: 'invoice.xml', contentType: 'application/xml', content: '<?xml version="1.0"?><Invoice><ID>1</ID></Invoice>' }],
      [{ filename: 'data.json', contentType: 'application/json', content: '{"items":[1,2,3]}' }],
      [{ filename: 'notes.txt', contentType: 'text/plain', content: 'nothing to see' }],
      [{ filename: 'broken.zip', contentType: 'application/zip', content: 'PK\x03\x04 cut short' }],
    ];
    for (const parts of cases)
      assert.equal(readReportMail(await reportMail(parts, 'Hello, see attached.')), null, JSON.stringify(parts.map((p) => p.filename)));
  });
});
