// POST /templates/preview: a draft's subject, html and text rendered with sample values, as an
// email sent with it would be (render-content.ts, the renderer sending uses). Nothing is read
// or stored: the body is the content being edited, saved or not, so the dashboard's editor
// previews as the person types. Why a route rather than the renderer imported into the web
// build: the rule stays the server's alone (types checked, values escaped, placeholders
// defined), and a preview can never disagree with what is sent.
import type { Route } from '../api/route.js';
import { constant, nullable, object, string } from '../api/schema.js';
import { renderContent } from './render-content.js';
import { PREVIEW_TEMPLATE_SCHEMA, type PreviewBody, previewDraft } from './template-fields.js';

export function previewTemplate(): Route {
  return {
    method: 'POST',
    url: '/templates/preview',
    doc: {
      summary: "Render a template's content with sample values (nothing is stored)",
      addition: true,
      body: PREVIEW_TEMPLATE_SCHEMA,
      response: {
        status: 200,
        schema: object({ object: constant('template_preview'), subject: nullable(string()), html: string(), text: nullable(string()) }),
      },
    },
    async handler({ body }) {
      const draft = previewDraft(body as PreviewBody);
      return { body: { object: 'template_preview', ...renderContent(draft, draft.values) } };
    },
  };
}
