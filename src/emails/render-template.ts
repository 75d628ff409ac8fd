// The render step of the accept pipeline: an email sent with `template: {id, variables}`
// becomes the same email with the published template's content (interface-spec §2.2):
//
//   1. html, text or react beside a template is refused by the email's schema (email-request.ts),
//      as is a malformed `template`;
//   2. the payload's from, subject and reply_to beat the template's; one missing from both
//      is the usual missing_required_field error;
//   3. the template's subject, html and text are rendered now, with the values sent, the
//      inline fallbacks and the variables' fallback values (src/templates/render-content.ts,
//      which the dashboard's preview renders with too). A subject rendered from the template
//      is held to the schema's rule: one line, not empty.
//
// It runs after the schema's check and before the validate step, and hands it a plain payload,
// so a templated email is read by exactly the rules of any other. One query for all the
// templates a submission names; none when it names none.
import { ApiError, missingField, notFound, validation } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { findPublishedTemplates, type PublishedTemplate } from '../templates/find-template.js';
import { renderContent } from '../templates/render-content.js';
import type { EmailBody, SendableBody } from './email-request.js';

type TemplateRef = NonNullable<EmailBody['template']>;

/** A payload as validate should see it, and the id of the template it was rendered from. */
export interface Rendered {
  payload: unknown | ApiError;
  templateId?: string;
}

/** The template a payload names, if any (an ApiError is an email already refused). */
function templateOf(payload: unknown): TemplateRef | undefined {
  return payload instanceof ApiError || payload === null || typeof payload !== 'object' ? undefined : (payload as EmailBody).template;
}

/**
 * Each payload as validate should see it: unchanged without a template, rendered with one,
 * or the ApiError that stops it (reported per email in permissive batches).
 */
export async function renderTemplates(q: Queryable, accountId: string, payloads: unknown[]): Promise<Rendered[]> {
  const refs = payloads.map(templateOf);
  if (refs.every((r) => r === undefined)) return payloads.map((payload) => ({ payload }));
  const wanted = refs.filter((r) => r !== undefined).map((r) => r.id);
  const templates = await findPublishedTemplates(q, accountId, wanted);

  return payloads.map((payload, i): Rendered => {
    const ref = refs[i];
    if (ref === undefined) return { payload };
    const template = templates.get(ref.id);
    if (template === undefined) return { payload: notFound('Template') };
    if (template === 'draft') {
      return { payload: validation(`The template \`${ref.id}\` has not been published. Publish it before sending with it.`) };
    }
    try {
      return { payload: render(payload as EmailBody, template, ref.variables ?? {}), templateId: template.id };
    } catch (err) {
      if (err instanceof ApiError) return { payload: err };
      throw err;
    }
  });
}

function render(payload: EmailBody, template: PublishedTemplate, sent: Record<string, unknown>): SendableBody {
  const { template: _template, ...rest } = payload;
  // A subject sent with the email replaces the template's, which is then not rendered at all.
  const rendered = renderContent({ ...template, subject: rest.subject == null ? template.subject : null }, sent);
  const from = rest.from ?? template.from;
  if (from == null) throw missingField('from');
  const replyTo = rest.reply_to ?? template.reply_to;
  return {
    ...rest,
    from,
    subject: rest.subject ?? renderedSubject(rendered.subject),
    ...(replyTo ? { reply_to: replyTo } : {}),
    html: rendered.html,
    // No text in the template: the validate step leaves it undefined and compose generates it.
    ...(rendered.text === null ? {} : { text: rendered.text }),
  };
}

/** The template's subject rendered, held to the schema's rule for `subject`: a value sent may have added a line break. */
function renderedSubject(subject: string | null): string {
  if (subject === null) throw missingField('subject');
  if (!/\S/.test(subject)) throw validation('The `subject` field must not be empty.');
  if (/[\r\n\0]/.test(subject)) throw validation('The `subject` field must not contain line breaks.');
  return subject;
}
