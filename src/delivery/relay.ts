// POSTLINE_RELAY_URL: `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…`
// (TLS from the first byte). With it, every message goes to that smarthost instead of the
// recipients' MX hosts, authenticated when the URL carries credentials.

export interface RelayTarget {
  host: string;
  port: number;
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
}

export function parseRelayUrl(raw: string): RelayTarget {
  const url = new URL(raw);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(url.password) } : undefined,
  };
}
