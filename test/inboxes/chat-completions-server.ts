// A loopback server speaking the OpenAI chat completions protocol, as the inbox agent's model
// endpoint (POSTLINE_AGENT_URL): POST /v1/chat/completions with a bearer key and a JSON body
// {model, messages}; the answer is {choices: [{message: {role, content}}]}. Each request is
// kept; `answer` decides per request: a reply's text, an error status, or no answer at all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ChatRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { model?: string; messages?: { role: string; content: string }[] };
}

type ChatAnswer = { reply: string } | { status: number; body?: string } | { hang: true };

export class ChatCompletionsServer {
  requests: ChatRequest[] = [];
  answer: (request: ChatRequest) => ChatAnswer = () => ({ reply: 'Thanks for writing.' });
  private server = http.createServer((req, res) => this.handle(req, res));
  private hanging = new Set<http.ServerResponse>();

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/chat/completions`;
  }

  /** The requests whose conversation mentions `text` (a subject: one thread's requests). */
  about(text: string): ChatRequest[] {
    return this.requests.filter((r) => r.body.messages?.some((m) => m.content.includes(text)));
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: ChatRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // kept as {}: the test's assertions on the body then fail
      }
      const request: ChatRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body };
      this.requests.push(request);
      const answer = this.answer(request);
      if ('hang' in answer) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      if ('status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '{"error":{"message":"failure"}}');
        return;
      }
      const completion = {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer.reply }, finish_reason: 'stop' }],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    });
  }
}
