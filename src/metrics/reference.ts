// docs/reference/metrics.md's table, made from the definitions (definitions.ts) by `npm run docs`.
import { registry } from './definitions.js';

interface Described {
  name: string;
  type: string;
  help: string;
  labelNames: readonly string[];
  /** A histogram's bucket bounds. */
  buckets?: number[];
}

/** One row per metric, in the order defined: name, type, labels, help. */
export function metricsTable(): string {
  const rows = (registry.getMetricsAsArray() as unknown as Described[]).map((m) => {
    const labels = m.labelNames.length ? m.labelNames.map((l) => `\`${l}\``).join(', ') : '';
    const type = m.buckets ? `${m.type} (\`le\` ${m.buckets.join(', ')})` : m.type;
    return `| \`${m.name}\` | ${type} | ${labels} | ${m.help.replace(/\|/g, '\\|')} |`;
  });
  return ['| metric | type | labels | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
