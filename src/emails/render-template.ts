// The render step of the accept pipeline: an email sent with `template: {id, variables}`
// becomes the same email with the published template's content (interface-spec §2.2):
//
//   1. html, text or react beside a template is a validation error;
//   2. the payload's from, subject and reply_to beat the template's; one missing from both
//      is the validate step's usual missing_required_field error;
//   3. the template's subject, html and text are rendered now, with the values sent, the
//      inline fallbacks and the variables' fallback values (src/templates/render-content.ts,
//      which the dashboard's preview renders with too).
//
// It runs before validate and hands it a plain payload, so a templated email is checked by
// exactly the rules of any other. One query for all the templates a submission names; none
// when it names none.
import { ApiError, missingField, notFound, validation } from '../api/errors.js';
import type { Body } from '../api/validate.js';
import { rejectUnknown } from '../api/validate.js';
import type { Queryable } from '../db/database.js';
import { findPublishedTemplates, type PublishedTemplate } from '../templates/find-template.js';
import { renderContent } from '../templates/render-content.js';

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const present = (body: Body, field: string) => body[field] !== undefined && body[field] !== null;

interface TemplateRef {
  id: string;
  values: Record<string, unknown>;
}

/** A payload as validate should see it, and the id of the template it was rendered from. */
export interface Rendered {
  payload: unknown | ApiError;
  templateId?: string;
}

/**
 * Each payload as validate should see it: unchanged without a template, rendered with one,
 * or the ApiError that stops it (reported per email in permissive batches).
 */
export async function renderTemplates(q: Queryable, accountId: string, payloads: unknown[]): Promise<Rendered[]> {
  const refs = payloads.map((payload) => {
    if (!isObject(payload) || !present(payload, 'template')) return undefined;
    try {
      return templateRef(payload);
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
  });
  if (refs.every((r) => r === undefined)) return payloads.map((payload) => ({ payload }));
  const wanted = refs.filter((r): r is TemplateRef => r !== undefined && !(r instanceof ApiError)).map((r) => r.id);
  const templates = wanted.length ? await findPublishedTemplates(q, accountId, wanted) : new Map<string, never>();

  return payloads.map((payload, i): Rendered => {
    const ref = refs[i];
    if (ref === undefined || ref instanceof ApiError) return { payload: ref ?? payload };
    const template = templates.get(ref.id);
    if (template === undefined) return { payload: notFound('Template') };
    if (template === 'draft') {
      return { payload: validation(`The template \`${ref.id}\` has not been published. Publish it before sending with it.`) };
    }
    try {
      return { payload: render(payload as Body, template, ref.values), templateId: template.id };
    } catch (err) {
      if (err instanceof ApiError) return { payload: err };
      throw err;
    }
  });
}

function templateRef(payload: Body): TemplateRef {
  for (const field of ['html', 'text', 'react']) {
    if (present(payload, field)) throw validation(`The \`template\` field cannot be used together with \`${field}\`.`);
  }
  const template = payload.template;
  if (!isObject(template)) throw validation('The `template` field must be an object: `{id, variables}`.');
  rejectUnknown(template, ['id', 'variables'], 'template.');
  if (!present(template, 'id')) throw missingField('template.id');
  if (typeof template.id !== 'string' || template.id.trim() === '') throw validation('The `template.id` field must be a template id or alias.');
  const variables = template.variables ?? {};
  if (!isObject(variables)) throw validation('The `template.variables` field must be an object of strings and numbers.');
  return { id: template.id, values: variables };
}

function render(payload: Body, template: PublishedTemplate, sent: Record<string, unknown>): Body {
  const { template: _template, ...rest } = payload;
  // A subject sent with the email replaces the template's, which is then not rendered at all.
  const rendered = renderContent({ ...template, subject: present(rest, 'subject') ? null : template.subject }, sent);
  return {
    ...rest,
    from: present(rest, 'from') ? rest.from : template.from,
    subject: present(rest, 'subject') ? rest.subject : rendered.subject,
    reply_to: present(rest, 'reply_to') ? rest.reply_to : template.reply_to,
    html: rendered.html,
    // No text in the template: the validate step leaves it undefined and compose generates it.
    text: rendered.text ?? undefined,
  };
}
