// What the inbox agent asks the model: a system message with the agent's settings (its
// instructions and tone, from PATCH /inboxes/:inbox/agent) and a user message with the thread
// so far. The thread is bounded: its newest messages first, each cut to MAX_MESSAGE_CHARS,
// until MAX_THREAD_CHARS, so a long thread or a huge message never makes a request the
// endpoint would refuse (or a bill no one expected).
import type { ChatMessage } from './agent-model.js';

const MAX_MESSAGES = 20;
const MAX_MESSAGE_CHARS = 8_000;
const MAX_THREAD_CHARS = 32_000;

const TONES: Record<string, string> = {
  concise_professional: 'short and professional',
  concise_casual: 'short, friendly and casual',
  expanded_professional: 'thorough and professional',
  expanded_casual: 'thorough, warm and casual',
};

export interface AgentSettings {
  emailAddress: string;
  name: string;
  instructions: string | null;
  tone: string | null;
}

export interface ThreadMessage {
  direction: 'inbound' | 'outbound';
  fromDisplay: string;
  to: string[];
  subject: string | null;
  text: string | null;
  html: string | null;
  createdAt: Date;
}

function systemPrompt(agent: AgentSettings): string {
  const lines = [
    `You are the assistant of the shared email inbox ${agent.emailAddress} ("${agent.name}").`,
    'Draft a reply to the last message of the conversation below. A person of the team reviews the draft and sends it; you send nothing.',
    'Write only the body of the reply, as plain text: no subject line, no placeholders, and never say that something was done unless the conversation shows it.',
  ];
  if (agent.tone) lines.push(`Tone: ${agent.tone} (${TONES[agent.tone] ?? agent.tone}).`);
  if (agent.instructions) lines.push('', "The inbox owners' instructions:", agent.instructions);
  return lines.join('\n');
}

/** A message's readable text: its text part, else its HTML without tags. */
function bodyText(message: ThreadMessage): string {
  const text = message.text ?? (message.html ?? '').replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, ' ').replace(/<[^>]*>/g, ' ');
  const trimmed = text.trim();
  return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}\n[… cut]` : trimmed;
}

function describe(message: ThreadMessage): string {
  return [
    `${message.direction === 'inbound' ? 'Received' : 'Sent by the team'} ${message.createdAt.toISOString()}`,
    `From: ${message.fromDisplay}`,
    `To: ${message.to.join(', ')}`,
    `Subject: ${message.subject ?? ''}`,
    '',
    bodyText(message),
  ].join('\n');
}

/** The conversation, oldest first, bounded from the newest message back. */
function threadTranscript(messages: ThreadMessage[]): string {
  const kept: string[] = [];
  let size = 0;
  for (const message of messages.slice(-MAX_MESSAGES).reverse()) {
    const part = describe(message);
    if (kept.length > 0 && size + part.length > MAX_THREAD_CHARS) break;
    kept.unshift(part.slice(0, MAX_THREAD_CHARS));
    size += part.length;
  }
  return kept.join('\n\n---\n\n');
}

export function draftRequest(agent: AgentSettings, messages: ThreadMessage[]): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(agent) },
    { role: 'user', content: threadTranscript(messages) },
  ];
}
