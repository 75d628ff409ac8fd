// The inbox agent's one call: an OpenAI-compatible chat completions request (POST, JSON,
// `Authorization: Bearer <key>`; the reply is `choices[0].message.content`), with Node's fetch.
// The URL is the operator's (POSTLINE_AGENT_URL), not a tenant's, so egress/'s rule for
// tenants' URLs does not apply. Every way it can go wrong (no connection, no answer within the
// timeout, an error status, an answer that is not JSON or has no text) is a ModelError naming
// it; the worker retries those and gives up after the last retry.

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface ModelEndpoint {
  url: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

/** A draft longer than this is cut: a reply, not a book. */
const MAX_REPLY_CHARS = 100_000;
/** How much of an error answer's body is kept in the job's last_error and the log. */
const MAX_ERROR_BODY = 300;

export class ModelError extends Error {}

function replyIn(body: string): string {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    throw new ModelError(`the answer is not JSON: ${body.slice(0, MAX_ERROR_BODY)}`);
  }
  const content = (answer as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || content.trim() === '') {
    throw new ModelError(`the answer has no text in choices[0].message.content: ${body.slice(0, MAX_ERROR_BODY)}`);
  }
  return content.trim().slice(0, MAX_REPLY_CHARS);
}

/** Asks the model; resolves with its reply's text, or rejects with a ModelError. */
export async function askModel(endpoint: ModelEndpoint, messages: ChatMessage[]): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  let status: number;
  let body: string;
  try {
    // One deadline for the request and its answer's body.
    const response = await fetch(endpoint.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: endpoint.model, messages }),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
    status = response.status;
    body = await response.text();
  } catch (err) {
    const e = err as Error & { cause?: Error };
    if (e.name === 'TimeoutError') throw new ModelError(`no answer within ${endpoint.timeoutMs} ms`);
    throw new ModelError(`the request failed: ${e.cause?.message ?? e.message}`);
  }
  if (status < 200 || status > 299) throw new ModelError(`the endpoint answered ${status}: ${body.slice(0, MAX_ERROR_BODY)}`);
  return replyIn(body);
}
