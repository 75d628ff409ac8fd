// The sign step: DKIM (RFC 6376), rsa-sha256 with relaxed/relaxed canonicalization and the
// domain's key and selector. The signature header is prepended, so the stored message is byte
// for byte what delivery sends.
//
// Speed (the accept hot path): canonicalization, body hash and header formatting are
// mailauth's own functions, the ones its dkimSign() runs, called directly instead of through
// its stream (which also re-parses the PEM key on every message). The RSA operation, the
// largest single cost of accepting an email, runs on libuv's thread pool (async crypto.sign),
// so it uses the second core while the event loop composes the next message.
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { openSecret } from '../secrets/keyring.js';

interface HeaderLine {
  key: string;
  casedKey: string;
  line: Buffer;
}
interface DkimTags {
  b?: string;
  [tag: string]: unknown;
}

// mailauth 4 (CommonJS, pinned in package-lock.json) has no typings for these modules.
const require = createRequire(import.meta.url);
const tools = require('mailauth/lib/tools.js') as {
  parseHeaders(headers: Buffer): { parsed: HeaderLine[] };
  getSigningHeaderLines(parsed: HeaderLine[], fieldNames?: string): { keys: string; headers: HeaderLine[] };
  formatSignatureHeaderLine(type: 'DKIM', tags: DkimTags, folded: boolean): string;
};
const { dkimBody } = require('mailauth/lib/dkim/body/index.js') as {
  dkimBody(
    canonicalization: 'relaxed',
    algorithm: 'sha256',
    maxBodyLength: false,
  ): {
    update(chunk: Buffer): void;
    digest(encoding: 'base64'): string;
  };
};
const { generateCanonicalizedHeader } = require('mailauth/lib/dkim/header/index.js') as {
  generateCanonicalizedHeader(
    type: 'DKIM',
    lines: { keys: string; headers: HeaderLine[] },
    options: {
      signingDomain: string;
      selector: string;
      algorithm: string;
      canonicalization: string;
      bodyHash: string;
      signTime: Date;
    },
  ): { canonicalizedHeader: Buffer; dkimHeaderOpts: DkimTags };
};

/**
 * The headers signed: mailauth's default list (From, Subject, Date, To, List-Unsubscribe, …)
 * plus List-Unsubscribe-Post, which RFC 8058 §4 requires a DKIM signature to cover for
 * one-click unsubscribe (broadcasts, src/audience/unsubscribe-links.ts).
 */
const SIGNED_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:' +
  'In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:List-Subscribe:List-Post:List-Owner:List-Archive:' +
  'BIMI-Selector:List-Unsubscribe-Post';

const rsaSign = promisify(crypto.sign) as (algorithm: string, data: Buffer, key: crypto.KeyObject) => Promise<Buffer>;

/**
 * Parsed keys by their stored (sealed) form. Opening and parsing a key cost about as much as
 * signing with it, so each domain's key is opened once per process, never per message (a
 * rotated or re-wrapped key is another value, hence another entry).
 */
const keys = new Map<string, crypto.KeyObject>();
const MAX_KEYS = 10_000;

function keyOf(stored: string): crypto.KeyObject {
  let key = keys.get(stored);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = crypto.createPrivateKey(openSecret(stored, 'dkim-private-key'));
    keys.set(stored, key);
  }
  return key;
}

/** What signing needs of a sending domain (domains/sending-domain.ts SendingDomain has it). */
interface DkimKey {
  name: string;
  dkimSelector: string;
  /** As stored: sealed (secrets/), or a PEM from before secrets were sealed. */
  dkimPrivateKey: string;
}

export async function signMessage(message: Buffer, domain: DkimKey): Promise<Buffer> {
  const split = message.indexOf('\r\n\r\n');
  if (split < 0) throw new Error('DKIM: the message has no header/body separator');
  const body = dkimBody('relaxed', 'sha256', false);
  body.update(message.subarray(split + 4));
  const { canonicalizedHeader, dkimHeaderOpts } = generateCanonicalizedHeader(
    'DKIM',
    tools.getSigningHeaderLines(tools.parseHeaders(message.subarray(0, split + 2)).parsed, SIGNED_HEADERS),
    {
      signingDomain: domain.name,
      selector: domain.dkimSelector,
      algorithm: 'rsa-sha256',
      canonicalization: 'relaxed/relaxed',
      bodyHash: body.digest('base64'),
      // Fixed here: t= is written twice (in the signed header and in the final one), and the
      // RSA operation between the two may cross a second.
      signTime: new Date(),
    },
  );
  const signature = await rsaSign('sha256', canonicalizedHeader, keyOf(domain.dkimPrivateKey));
  const header = tools.formatSignatureHeaderLine('DKIM', { ...dkimHeaderOpts, b: signature.toString('base64') }, true);
  return Buffer.concat([Buffer.from(`${header}\r\n`, 'latin1'), message]);
}
