// `npm run docs`: rewrites the parts of the docs that are generated from definitions in code
// (the README's configuration table, from src/config.ts; docs/reference/metrics.md's table,
// from src/metrics/definitions.ts), and the dashboard's API types (web/src/api-types.ts, from
// the OpenAPI document of every route). test/config.unit.test.ts,
// test/metrics/reference.unit.test.ts and test/web/api-types.test.ts fail when one is out of date.
import fs from 'node:fs';
import { configurationTable } from '../src/config.js';
import { metricsTable } from '../src/metrics/reference.js';
import { API_TYPES_FILE, apiTypes, withGenerated } from './generated-docs.js';

const generated: [file: string, part: string, content: string][] = [
  ['../README.md', 'config-table', configurationTable()],
  ['../docs/reference/metrics.md', 'metrics-table', metricsTable()],
];
for (const [file, part, content] of generated) {
  const doc = new URL(file, import.meta.url);
  fs.writeFileSync(doc, withGenerated(fs.readFileSync(doc, 'utf8'), part, content));
}
fs.writeFileSync(new URL(`../${API_TYPES_FILE}`, import.meta.url), await apiTypes());
