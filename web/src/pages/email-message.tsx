// An email's message on its page (pages/Emails.tsx): tabs for the preview (the HTML in the
// sandboxed frame, at the page's width or a phone's), the plain text part, the source as sent
// (GET /emails/:id/raw) and its headers; and the share link (POST /emails/:id/share).
import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useId, useMemo, useState } from 'react';
import { type Answer, ApiFailure, api, type RequestBody } from '../api';
import { CopyButton, ErrorMessage, Tabs } from '../components';
import { HeaderTable, MailHtml, type MailHeader } from '../mail-viewer';

type Email = Answer<'/emails/{id}'>;
type Share = Answer<'/emails/{id}/share', 'post'>;

const ENCODED_WORD = /=\?([^?\s]+)\?([QqBb])\?([^?\s]*)\?=/;

/** One RFC 2047 encoded word's text (an unknown charset is read as UTF-8). */
function decodeWord(charset: string, encoding: string, text: string): string {
  let bytes: Uint8Array;
  if (encoding.toUpperCase() === 'B') bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  else {
    const binary = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  }
  try {
    return new TextDecoder(charset.split('*')[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** A header value with its encoded words decoded for reading; the space between two words goes (RFC 2047 §6.2). */
function decodeWords(value: string): string {
  const pattern = new RegExp(`${ENCODED_WORD.source}(\\s+(?=${ENCODED_WORD.source}))?`, 'g');
  return value.replace(pattern, (_, charset: string, encoding: string, text: string) => {
    try {
      return decodeWord(charset, encoding, text);
    } catch {
      return _;
    }
  });
}

/** The header section of a raw message, unfolded (RFC 5322 §2.2.3), encoded words decoded (/raw keeps them as sent). */
function parseHeaders(raw: string): MailHeader[] {
  const end = raw.search(/\r?\n\r?\n/);
  const lines = (end < 0 ? raw : raw.slice(0, end)).split(/\r?\n/);
  const headers: MailHeader[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && headers.length) headers.at(-1)!.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
  }
  return headers.map((h) => ({ name: h.name, value: decodeWords(h.value) }));
}

/** The most of a message's source the Source tab shows (the headers come first, well within it). */
const SOURCE_SHOWN = 256 * 1024;

interface Source {
  text: string;
  /** The whole message's size in bytes, when the answer said it. */
  size: number | null;
  truncated: boolean;
}

/** The start of the message as sent, at most SOURCE_SHOWN bytes of it: a message with attachments can be large. */
async function readSource(path: string): Promise<Source> {
  const res = await fetch(`${path}/raw`, { credentials: 'same-origin' });
  if (!res.ok || !res.body) throw new ApiFailure(res.status, 'The raw message could not be read.', 'error');
  const length = res.headers.get('content-length');
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let read = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    read += value.length;
    if (read > SOURCE_SHOWN) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const bytes = new Uint8Array(read);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { text: new TextDecoder().decode(bytes.subarray(0, SOURCE_SHOWN)), size: length === null ? null : Number(length), truncated };
}

const kilobytes = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString()} KB`;

/** The width of the phone the preview can be shown at, in CSS pixels (an iPhone's, as most mail is read). */
const PHONE_WIDTH = 375;
/** The widest a message's text usually runs: mail is laid out for about 600 pixels. */
const MAIL_WIDTH = 640;
const MIN_HEIGHT = 160;
const BLOCKS = new Set([
  'P',
  'DIV',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'LI',
  'TD',
  'TH',
  'BLOCKQUOTE',
  'PRE',
  'DD',
  'DT',
  'CENTER',
  'SECTION',
  'ARTICLE',
  'HEADER',
  'FOOTER',
]);
const LINE: Record<string, number> = { H1: 37, H2: 28, H3: 24 };
const MARGIN: Record<string, number> = { P: 16, H1: 21, H2: 20, H3: 19, H4: 21, H5: 22, H6: 25, BLOCKQUOTE: 16, PRE: 13 };

/**
 * About how tall `html` lays out at `width` pixels, for the preview frame's height: the frame's
 * document has no origin (it is sandboxed), so it cannot be measured from the page, and it runs
 * no script that could tell. The HTML is parsed into an inert document (nothing in it runs or
 * loads) and its text and images are added up, block by block: near enough for the frame to fit
 * short messages and to stop where a long one scrolls (at most three quarters of the window).
 */
function estimatedHeight(html: string, width: number): number {
  const body = new DOMParser().parseFromString(html, 'text/html').body;
  const charsPerLine = Math.max(20, Math.floor((width - 16) / 7.5));
  let height = 16;
  const inlineText = (block: Element): { chars: number; breaks: number } => {
    let chars = 0;
    let breaks = 0;
    for (const node of block.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) chars += (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
      else if (node instanceof Element && node.tagName === 'BR') breaks++;
      else if (node instanceof Element && !BLOCKS.has(node.tagName)) {
        const inner = inlineText(node);
        chars += inner.chars;
        breaks += inner.breaks;
      }
    }
    return { chars, breaks };
  };
  for (const block of [body, ...body.querySelectorAll('*')]) {
    if (block !== body && !BLOCKS.has(block.tagName)) continue;
    if (block.tagName === 'PRE') {
      height += (block.textContent ?? '').split('\n').length * 20 + MARGIN.PRE!;
      continue;
    }
    const { chars, breaks } = inlineText(block);
    if (chars === 0 && breaks === 0) continue;
    height += (Math.ceil(chars / charsPerLine) + breaks) * (LINE[block.tagName] ?? 21) + (MARGIN[block.tagName] ?? 0);
  }
  for (const image of body.querySelectorAll('img')) {
    const w = Number.parseInt(image.getAttribute('width') ?? '', 10);
    const h = Number.parseInt(image.getAttribute('height') ?? '', 10);
    if (h > 0) height += w > width ? Math.round((h * width) / w) : h;
    else height += 120;
  }
  const most = Math.max(360, Math.round(window.innerHeight * 0.75));
  return Math.min(most, Math.max(MIN_HEIGHT, Math.round(height)));
}

function Preview({ html }: { html: string }) {
  const [phone, setPhone] = useState(false);
  const height = useMemo(() => estimatedHeight(html, phone ? PHONE_WIDTH : MAIL_WIDTH), [html, phone]);
  return (
    <>
      <p className="row preview-tools">
        <button type="button" className="secondary small" aria-pressed={phone} onClick={() => setPhone((p) => !p)}>
          Phone width
        </button>
        <span className="hint">{phone ? `As a phone ${PHONE_WIDTH} pixels wide shows it.` : 'As wide as this page.'}</span>
      </p>
      <MailHtml html={html} title="The message's HTML" frameStyle={phone ? { height, width: PHONE_WIDTH, maxWidth: '100%' } : { height }} />
    </>
  );
}

/** Text in a box that scrolls when long: a keyboard stop, so it scrolls by keyboard too. */
function ScrollBox({ label, text, className = '' }: { label: string; text: string; className?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be reachable by keyboard
    <section className={`mail-source ${className}`.trim()} tabIndex={0} aria-label={label}>
      <pre>{text}</pre>
    </section>
  );
}

const NOT_YET = 'No message yet: Postline composes and signs it at its first delivery attempt, and its source and headers show here from then on.';

/**
 * The message in four tabs. `rawAvailable`: whether GET /emails/:id/raw has the message (the
 * page's own probe; undefined until it knows); Source and Headers read it only when one of them is opened.
 */
export function MessageTabs({ path, email, rawAvailable }: { path: string; email: Email; rawAvailable: boolean | undefined }) {
  const [tab, setTab] = useState(email.html === null && email.text !== null ? 'text' : 'preview');
  const wantsSource = rawAvailable === true && (tab === 'source' || tab === 'headers');
  const source = useQuery({ queryKey: ['email-source', path], queryFn: () => readSource(path), enabled: wantsSource, staleTime: Number.POSITIVE_INFINITY });
  const headers = useMemo(() => (source.data ? parseHeaders(source.data.text) : undefined), [source.data]);
  const fromSource = (show: (s: Source) => ReactNode) => () =>
    rawAvailable === false ? (
      <p className="hint">{NOT_YET}</p>
    ) : (
      <>
        <ErrorMessage error={source.error} />
        {(rawAvailable === undefined || source.isPending) && <p className="hint">Loading…</p>}
        {source.data && show(source.data)}
      </>
    );
  return (
    <section aria-labelledby="email-message-title">
      <h2 id="email-message-title">Message</h2>
      <Tabs
        label="The message"
        selected={tab}
        onSelect={setTab}
        tabs={[
          {
            id: 'preview',
            label: 'Preview',
            panel: () => (email.html === null ? <p className="hint">This message has no HTML part.</p> : <Preview html={email.html} />),
          },
          {
            id: 'text',
            label: 'Plain text',
            panel: () =>
              email.text === null ? (
                <p className="hint">This message has no text part.</p>
              ) : (
                <ScrollBox className="plain-text" label="The plain text part" text={email.text} />
              ),
          },
          {
            id: 'source',
            label: 'Source',
            panel: fromSource((s) => (
              <>
                {s.truncated && (
                  <p className="hint">
                    The first {kilobytes(SOURCE_SHOWN)}
                    {s.size ? ` of ${kilobytes(s.size)}` : ''}: download the raw message for all of it.
                  </p>
                )}
                <ScrollBox label="The message's source" text={s.text} />
              </>
            )),
          },
          {
            id: 'headers',
            label: 'Headers',
            panel: fromSource(() => headers && <HeaderTable headers={headers} heading={false} />),
          },
        ]}
      />
    </section>
  );
}

/** How long a share link works: the API's `expires_in`, and what the choice says. */
const EXPIRIES = [
  ['1 hour', '1 hour'],
  ['1 day', '1 day'],
  ['48 hours', '2 days'],
  ['7 days', '7 days'],
  ['30 days', '30 days'],
] as const;

/** A link to a read-only page of the email, made when asked for, shown with its expiry and a copy button. */
export function ShareLink({ id }: { id: string }) {
  const titleId = useId();
  const selectId = useId();
  const [expiresIn, setExpiresIn] = useState<string>('48 hours');
  const share = useMutation({
    mutationFn: () =>
      api<Share>('POST', `/emails/${encodeURIComponent(id)}/share`, { expires_in: expiresIn } satisfies RequestBody<'/emails/{id}/share', 'post'>),
  });
  const url = share.data?.url;
  const until = url ? Number(new URL(url).searchParams.get('expires')) * 1000 : Number.NaN;
  return (
    <section className="panel share" aria-labelledby={titleId}>
      <h2 id={titleId}>Share</h2>
      <p className="hint">A link to a read-only page of this email: whoever has it can read it without signing in, until it expires.</p>
      <div className="row">
        <label htmlFor={selectId}>Link works for</label>
        <select id={selectId} value={expiresIn} onChange={(event) => setExpiresIn(event.target.value)}>
          {EXPIRIES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" disabled={share.isPending} onClick={() => share.mutate()}>
          {url ? 'Create another link' : 'Create share link'}
        </button>
      </div>
      <ErrorMessage error={share.error} />
      {url && (
        <>
          <div className="copy-row share-url">
            <input readOnly value={url} aria-label="Share link" onFocus={(event) => event.currentTarget.select()} />
            <CopyButton value={url} label="Copy the share link" />
          </div>
          <p className="hint">
            {Number.isNaN(until) ? null : <>Works until {new Date(until).toLocaleString()}. </>}
            <a href={url} target="_blank" rel="noreferrer">
              Open the shared page
            </a>
          </p>
        </>
      )}
    </section>
  );
}
