import type { Route } from '../api/route.js';
import { array, constant, integer, nullable, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { type DestinationPolicy, pinnedRequest } from '../egress/destination-policy.js';
import { findCaptured, parseCaptured } from './captured-message.js';

const MAX_LINKS = 50;
const LINKS_AT_ONCE = 5;
const LINK_TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;

interface CheckedLink {
  url: string;
  /** The final answer's HTTP status; null when there was none (refused, unreachable, timed out). */
  status: number | null;
  /** Where redirects led, when they did. */
  redirected_to: string | null;
  error: string | null;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An attribute's text as a browser reads it: character references decoded. */
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** The http(s) links (`href` of `a` and `area`) of `html`, each once, in their order. */
function linksOf(html: string): string[] {
  const links = new Set<string>();
  for (const match of html.matchAll(/<(?:a|area)\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi)) {
    const href = decodeAttribute(match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (/^https?:\/\//i.test(href)) links.add(href);
  }
  return [...links];
}

function describe(err: Error & { code?: string }): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ENOTFOUND':
      return 'the host could not be resolved';
    default:
      return err.code ? `${err.message} (${err.code})` : err.message;
  }
}

/** One request, its answer's status and location; the body is never read. */
async function request(url: URL, method: 'HEAD' | 'GET', addresses: string[], signal: AbortSignal): Promise<{ status: number; location: string | undefined }> {
  const response = await pinnedRequest(url, { method, addresses, signal, userAgent: 'Postline (sandbox link check)' });
  response.destroy();
  return { status: response.statusCode ?? 0, location: response.headers.location };
}

async function checkLink(link: string, policy: DestinationPolicy): Promise<CheckedLink> {
  const signal = AbortSignal.timeout(LINK_TIMEOUT_MS);
  let current: URL;
  try {
    current = new URL(link);
  } catch {
    return { url: link, status: null, redirected_to: null, error: 'not a valid URL' };
  }
  const at = (status: number | null, error: string | null): CheckedLink => ({
    url: link,
    status,
    redirected_to: current.href === new URL(link).href ? null : current.href,
    error,
  });
  try {
    for (let hop = 0; ; hop++) {
      const addresses = await policy.addresses(current);
      let answer = await request(current, 'HEAD', addresses, signal);
      if (answer.status === 405 || answer.status === 501) answer = await request(current, 'GET', addresses, signal);
      const { status, location } = answer;
      if (status < 300 || status >= 400 || !location) return at(status, null);
      if (hop >= MAX_REDIRECTS) return at(status, `more than ${MAX_REDIRECTS} redirects`);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        return at(status, 'a redirect to an invalid URL');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') return at(status, `a redirect to a ${next.protocol} URL, not checked`);
      current = next;
    }
  } catch (err) {
    return at(null, signal.aborted ? `no answer within ${LINK_TIMEOUT_MS / 1000} s` : describe(err as Error));
  }
}

/** `links` checked LINKS_AT_ONCE at a time, the answers in the links' order. */
async function checkAll(links: string[], policy: DestinationPolicy): Promise<CheckedLink[]> {
  const results: CheckedLink[] = new Array(links.length);
  let next = 0;
  const worker = async () => {
    while (next < links.length) {
      const index = next++;
      results[index] = await checkLink(links[index]!, policy);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LINKS_AT_ONCE, links.length) }, worker));
  return results;
}

export function checkCapturedLinks(db: Db, policy: DestinationPolicy): Route {
  return {
    method: 'POST',
    url: '/sandbox/messages/:id/link-check',
    doc: {
      summary: "Checks the links of a captured message's HTML: each http(s) `href` with the HTTP status it answers now",
      description: `Each link is requested (HEAD, or GET when HEAD is not allowed) through Postline's egress rule: private, loopback and reserved addresses only as POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE allows. Redirects are followed (at most ${MAX_REDIRECTS}, each checked); a link has ${LINK_TIMEOUT_MS / 1000} s in all. At most ${MAX_LINKS} links are checked, the rest counted in \`unchecked\`.`,
      addition: true,
      params: { id: uuid() },
      response: {
        status: 200,
        schema: object({
          object: constant('link_check'),
          links: array(
            object({
              url: string(),
              status: nullable(integer({ description: 'The HTTP status of the last answer; null without one (see `error`).' })),
              redirected_to: nullable(string({ description: 'Where redirects led, when they did.' })),
              error: nullable(string({ description: 'Why the link has no answer, or why following it stopped.' })),
            }),
          ),
          unchecked: integer({ minimum: 0, description: `Links past the first ${MAX_LINKS}, not checked.` }),
        }),
      },
    },
    async handler({ principal, params }) {
      const row = await findCaptured(db, principal.accountId, params.id!);
      const links = linksOf((await parseCaptured(row)).html ?? '');
      const checked = await checkAll(links.slice(0, MAX_LINKS), policy);
      return { body: { object: 'link_check', links: checked, unchecked: Math.max(0, links.length - MAX_LINKS) } };
    },
  };
}
