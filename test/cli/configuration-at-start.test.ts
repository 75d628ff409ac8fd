// The operator's mistakes in the environment, as the `postline` command shows them: an
// invalid value stops it before anything starts, with the variable named; a POSTLINE_
// variable that no setting reads (a typo) is warned about and the command goes on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnv, runCli } from './postline-process.js';

describe('postline: configuration read at start', () => {
  it('stops on an invalid value, naming the variable', async () => {
    const run = await runCli(['help'], baseEnv({ POSTLINE_SMTP_TIMEOUT: 'soon' }));
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trim(), 'postline: POSTLINE_SMTP_TIMEOUT: "soon" is not a duration like 3d, 12h, 30m or 45s');
  });

  it('warns about a POSTLINE_ variable no setting reads, and goes on', async () => {
    const run = await runCli(['help'], baseEnv({ POSTLINE_RATE_LIMT: '5' }));
    assert.equal(run.code, 0, run.stderr);
    const warnings = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level === 40);
    assert.deepEqual(
      warnings.map((w) => [w.variable, w.msg]),
      [['POSTLINE_RATE_LIMT', 'POSTLINE_RATE_LIMT is not a Postline setting (a typo?): ignored']],
    );
    assert.match(run.stdout, /usage:/);
  });
});
