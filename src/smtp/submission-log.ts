// Authenticated SMTP messages appear in the account's request logs (GET /logs) beside its
// API requests: method `SMTP`, endpoint `smtp://<host>:<port>`, the reply code as the status,
// a summary of the message as the request (never its content) and the email id or the
// refusal as the response.
import type { SMTPServerSession } from 'smtp-server';
import type { RequestLogEntry } from '../logs/request-logs.js';
import { principalOf } from './session.js';

export interface SubmissionLogDeps {
  requestLogs: { record(entry: RequestLogEntry): void };
  hostname: string;
}

export interface SubmissionSummary {
  from?: string;
  to?: string[];
  subject?: string;
  size?: number;
  idempotency_key?: string;
}

export function logSubmission(
  deps: SubmissionLogDeps,
  session: SMTPServerSession,
  status: number,
  request: SubmissionSummary,
  response: Record<string, unknown>,
): void {
  const principal = principalOf(session);
  if (!principal) return;
  deps.requestLogs.record({
    accountId: principal.accountId,
    apiKeyId: principal.apiKeyId,
    userId: null,
    method: 'SMTP',
    endpoint: `smtp://${deps.hostname}:${session.localPort}`,
    status,
    userAgent: session.hostNameAppearsAs || undefined,
    requestBody: request,
    responseBody: response,
  });
}
