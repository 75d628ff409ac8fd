// The process logger (pino). Every role logs through a child with its own `role` field.
// On a terminal the lines are made readable by pino-pretty in this thread (no transport
// thread: a terminal's volume is small); anything else gets pino's JSON lines.
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export function createLogger(level: string, format: 'pretty' | 'json' = 'json'): Logger {
  const options = { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'json') return pino(options);
  return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY ?? false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
export type { Logger };
