// Shared by the automation tests: a sending setup (a verified domain, recipients' MX at the
// sink, a published welcome template) and polling through the public API (never sleeps).
import assert from 'node:assert/strict';
import type { CreateAutomationOptions, GetAutomationRunResponseSuccess } from 'resend';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';

export { eventually };

/** acme.test verified, example.org's MX at the sink, and a published template `welcome`. */
export async function setUpSending(t: TestPostline): Promise<{ templateId: string }> {
  await createVerifiedDomain(t, 'acme.test');
  t.dns.set('example.org', { MX: [{ exchange: 'mx.sink.test', priority: 10 }] });
  t.dns.set('mx.sink.test', { A: ['127.0.0.1'] });
  const template = await t.resend.templates
    .create({
      name: 'Welcome',
      alias: 'welcome',
      from: 'Acme <hello@acme.test>',
      subject: 'Welcome {{{FIRST_NAME|friend}}}',
      html: '<p>Hi {{{FIRST_NAME|friend}}}, plan {{{plan}}}. {{{GREETING}}}</p>',
      variables: [
        { key: 'plan', type: 'string', fallbackValue: 'none' },
        { key: 'GREETING', type: 'string', fallbackValue: 'Hello' },
      ],
    })
    .publish();
  assert.equal(template.error, null, JSON.stringify(template.error));
  return { templateId: template.data!.id };
}

export async function createAutomation(t: TestPostline, options: CreateAutomationOptions): Promise<string> {
  const created = await t.resend.automations.create(options);
  assert.equal(created.error, null, JSON.stringify(created.error));
  return created.data!.id;
}

/** The automation's one run for `email`'s contact, once it exists. */
export async function runOf(t: TestPostline, automationId: string, email: string): Promise<string> {
  return eventually(
    async () => {
      const rows = await t.sql(`SELECT r.id FROM automation_runs r JOIN contacts c ON c.id = r.contact_id WHERE r.automation_id = $1 AND c.email = $2`, [
        automationId,
        email,
      ]);
      return rows[0]?.id as string | undefined;
    },
    15_000,
    `a run for ${email}`,
  );
}

/** Polls GET /automations/:id/runs/:run_id until `done` holds for it. */
export async function runWhen(
  t: TestPostline,
  automationId: string,
  runId: string,
  done: (run: GetAutomationRunResponseSuccess) => boolean,
  timeoutMs = 15_000,
): Promise<GetAutomationRunResponseSuccess> {
  let last: GetAutomationRunResponseSuccess | undefined;
  return eventually(
    async () => {
      const run = await t.resend.automations.runs.get({ automationId, runId });
      assert.equal(run.error, null, JSON.stringify(run.error));
      last = run.data!;
      return done(run.data!) ? run.data! : undefined;
    },
    timeoutMs,
    `run ${runId}`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last seen: ${JSON.stringify(last)}`);
  });
}

export const stepOf = (run: GetAutomationRunResponseSuccess, key: string) => run.steps.find((s) => s.key === key);
