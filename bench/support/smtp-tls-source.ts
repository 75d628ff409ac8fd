// Builds and runs smtp-tls-source.c (the C submission generator beside this file): compiled
// once per machine into bench/.build/ with the system's cc and OpenSSL (libssl-dev), which
// bench/smtp-vs-peers.sh installs when missing.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SubmissionTarget } from './smtp-client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.join(here, 'smtp-tls-source.c');
const binary = path.join(here, '..', '.build', 'smtp-tls-source');

interface GeneratorMessage {
  from: string;
  to: string;
  /** dot-stuffed, CRLF line ends (smtp-client.ts dotStuffed()). */
  data: Buffer;
}

interface LoadResult {
  seconds: number;
  accepted: number;
  errors: number;
  firstError?: string;
  /** Average wait per step, ms (the C generator only): open (connect…AUTH), mail, rcpt, data, message. */
  stepMs?: Record<string, number>;
}

function build(): string {
  if (fs.existsSync(binary) && fs.statSync(binary).mtimeMs >= fs.statSync(source).mtimeMs) return binary;
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  try {
    execFileSync('cc', ['-O2', '-o', binary, source, '-lssl', '-lcrypto', '-lpthread'], { stdio: 'inherit' });
  } catch (err) {
    throw new Error(`building ${source} failed (needs cc and libssl-dev: apt-get install gcc libssl-dev; or use --client lean): ${(err as Error).message}`);
  }
  return binary;
}

/** Writes the messages in the generator's file format ("FROM\nTO\nLENGTH\n" + bytes each). */
export function writeMessagesFile(messages: GeneratorMessage[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'smtp-tls-source-')), 'messages');
  fs.writeFileSync(file, Buffer.concat(messages.flatMap((m) => [Buffer.from(`${m.from}\n${m.to}\n${m.data.length}\n`), m.data])));
  return file;
}

/** `n` messages over `sessions` connections at a time, `perConnection` each, from the C generator. */
export function runTlsSource(target: SubmissionTarget, messagesFile: string, n: number, sessions: number, perConnection: number): Promise<LoadResult> {
  const args = [
    String(target.port),
    target.implicit ? 'implicit' : 'starttls',
    target.apiKey,
    String(sessions),
    String(n),
    String(perConnection),
    messagesFile,
  ];
  const child = spawn(build(), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`smtp-tls-source exited with ${code}`));
      const result = JSON.parse(out) as { accepted: number; errors: number; seconds: number; first_error: string; step_ms: Record<string, number> };
      resolve({
        seconds: result.seconds,
        accepted: result.accepted,
        errors: result.errors,
        firstError: result.first_error || undefined,
        stepMs: result.step_ms,
      });
    });
  });
}
