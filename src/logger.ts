// The process logger (pino). Every role logs through a child with its own `role` field.
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}
export type { Logger };
