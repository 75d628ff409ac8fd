// A template's content rendered with the values given for its variables: what sending puts in
// an email (emails/render-template.ts, with the published version) and what a preview shows
// (preview-template.ts, with the draft being edited), by the same rules (variables.ts).
import { checkValue, renderString, type RenderInput, type TemplateVariable, type VariableValue } from './variables.js';

interface TemplateContent {
  subject: string | null;
  html: string;
  text: string | null;
  variables: Pick<TemplateVariable, 'key' | 'type' | 'fallback_value'>[];
}

interface RenderedContent {
  subject: string | null;
  html: string;
  text: string | null;
}

/** Checks each value against its variable's type, then renders subject, html and text. */
export function renderContent(content: TemplateContent, sent: Record<string, unknown>): RenderedContent {
  const definitions = new Map(content.variables.map((v) => [v.key, v]));
  const values: Record<string, VariableValue> = {};
  for (const [key, value] of Object.entries(sent)) {
    values[key] = checkValue(value, definitions.get(key)?.type, `The template variable \`${key}\``);
  }
  const input: RenderInput = { definitions, values };
  return {
    subject: content.subject && renderString(content.subject, input, 'text'),
    html: renderString(content.html, input, 'html'),
    text: content.text === null ? null : renderString(content.text, input, 'text'),
  };
}
