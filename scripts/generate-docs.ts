// `npm run docs`: rewrites the parts of the docs that are generated from definitions in code
// (the README's configuration table, from src/config.ts). test/config.unit.test.ts fails when
// a generated part is out of date.
import fs from 'node:fs';
import { configurationTable } from '../src/config.js';
import { withGenerated } from './generated-docs.js';

const readme = new URL('../README.md', import.meta.url);
fs.writeFileSync(readme, withGenerated(fs.readFileSync(readme, 'utf8'), 'config-table', configurationTable()));
