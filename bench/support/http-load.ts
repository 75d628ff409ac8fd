// The load generator: node:http with a keep-alive agent (one socket per client loop), bodies
// serialised before the clock starts, so the generator spends as little of the shared 2 cores
// as it can. Each client loop sends its next request when the previous one has answered
// (closed loop): throughput = completed requests / wall time, latency per request.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

interface Api {
  url: string;
  apiKey: string;
}

interface Reply {
  status: number;
  body: any;
}

const agents = new Map<string, http.Agent>();

function agentFor(url: string): http.Agent {
  let agent = agents.get(url);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 1024, scheduling: 'lifo' });
    agents.set(url, agent);
  }
  return agent;
}

export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/** One request with a pre-serialised body; the reply body is parsed as JSON when it is JSON. */
export function request(api: Api, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}): Promise<Reply> {
  const url = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: agentFor(api.url),
        headers: {
          authorization: `Bearer ${api.apiKey}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* keep the text */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const postJson = (api: Api, path: string, body: unknown, headers?: Record<string, string>) =>
  request(api, 'POST', path, Buffer.from(JSON.stringify(body)), headers);
export const getJson = (api: Api, path: string) => request(api, 'GET', path);

export interface LoadResult {
  concurrency: number;
  seconds: number;
  requests: number;
  /** Requests that failed (non-2xx or network error). */
  errors: number;
  /** Units committed (emails), counted from 2xx replies by the caller's `units`. */
  units: number;
  latenciesMs: number[];
  firstError?: string;
}

/**
 * Runs `concurrency` closed-loop clients for `durationMs` (or until `maxRequests` were sent).
 * `next(i)` gives the i-th request body; `units(reply)` how many emails a 2xx reply committed.
 */
export async function closedLoop(options: {
  api: Api;
  path: string;
  concurrency: number;
  durationMs?: number;
  maxRequests?: number;
  next: (i: number) => Buffer;
  units: (reply: Reply) => number;
  headers?: Record<string, string>;
}): Promise<LoadResult> {
  const { api, path, concurrency } = options;
  const latenciesMs: number[] = [];
  let sent = 0;
  let errors = 0;
  let units = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = options.durationMs === undefined ? Infinity : started + options.durationMs;
  const limit = options.maxRequests ?? Infinity;
  const client = async () => {
    while (sent < limit && performance.now() < deadline) {
      const body = options.next(sent++);
      const t0 = performance.now();
      try {
        const reply = await request(api, 'POST', path, body, options.headers);
        latenciesMs.push(performance.now() - t0);
        if (reply.status >= 200 && reply.status < 300) units += options.units(reply);
        else {
          errors++;
          firstError ??= `${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return {
    concurrency,
    seconds: (performance.now() - started) / 1000,
    requests: latenciesMs.length,
    errors,
    units,
    latenciesMs,
    firstError,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
