// The /templates routes (resend-compat-notes §2.9), one file per operation, for server.ts to
// mount. Every :id is a template id or alias. Sending with a template is the accept
// pipeline's render step (src/emails/render-template.ts); POST /templates/preview renders a
// draft the same way for the dashboard's editor.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { createTemplate } from './create-template.js';
import { deleteTemplate } from './delete-template.js';
import { duplicateTemplate } from './duplicate-template.js';
import { getTemplate } from './get-template.js';
import { listTemplates } from './list-templates.js';
import { previewTemplate } from './preview-template.js';
import { publishTemplate } from './publish-template.js';
import { updateTemplate } from './update-template.js';

export function templateRoutes(db: Db): Route[] {
  return [
    createTemplate(db),
    listTemplates(db),
    getTemplate(db),
    updateTemplate(db),
    deleteTemplate(db),
    publishTemplate(db),
    duplicateTemplate(db),
    previewTemplate(),
  ];
}
