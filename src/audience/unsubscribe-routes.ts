// The public unsubscribe routes (no API key: the link's signature is the credential), for
// server.ts to mount. The URL is the one in every broadcast (unsubscribe-links.ts):
//
//   GET  /unsubscribe/:contact_id/:broadcast_id/:signature   the preference page
//   POST the same URL                                       a change from that page (form field
//        `action`: unsubscribe_all | topics | resubscribe), or RFC 8058 one-click: a POST
//        without `action` (body `List-Unsubscribe=One-Click`) unsubscribes from all mail.
//
// A forged or altered link, or one for a contact that no longer exists, gets a 404 page and
// changes nothing. Each change is one transaction with its contact.updated event.
import { isUuid } from '../api/format.js';
import type { FormPart, Route, RouteResult } from '../api/route.js';
import { array, object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { signers, type UrlSigner } from '../signed-urls/url-signing.js';
import { verifyUnsubscribeLink } from './unsubscribe-links.js';
import { donePage, invalidLinkPage, preferencesPage } from './unsubscribe-page.js';
import { loadPreferences, resubscribe, saveTopicChoices, unsubscribeFromAll } from './unsubscribe-preferences.js';

const URL_PATTERN = '/unsubscribe/:contact_id/:broadcast_id/:signature';

const html = (status: number, body: string): RouteResult => ({
  status,
  body,
  headers: {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  },
});

// A link in mail, followed by people: a mangled id gets the invalid-link page, as a forged link does, not an API error.
const LINK_PARAMS = {
  contact_id: string({ description: "The contact's id; anything else is a link that is not valid." }),
  broadcast_id: string({ description: "The broadcast's id; anything else is a link that is not valid." }),
};
const PAGE = { status: 200, contentType: 'text/html', description: 'An HTML page (404 with a page for a link that is not valid).' };

type LinkParams = { contactId: string; broadcastId: string } | undefined;

async function checkLink(signer: () => Promise<UrlSigner>, params: Record<string, string>): Promise<LinkParams> {
  const contactId = params.contact_id!.toLowerCase();
  const broadcastId = params.broadcast_id!.toLowerCase();
  if (!isUuid(contactId) || !isUuid(broadcastId)) return undefined;
  if (!verifyUnsubscribeLink(await signer(), contactId, broadcastId, params.signature!)) return undefined;
  return { contactId, broadcastId };
}

/** The form's fields: urlencoded ones from `body`, multipart ones read from `form` (files skipped). */
async function formFields(body: unknown, form: AsyncIterable<FormPart> | undefined): Promise<Record<string, unknown>> {
  if (!form) return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const fields: Record<string, string[]> = {};
  for await (const part of form) {
    if (part.kind === 'field') (fields[part.name] ??= []).push(part.value);
    else for await (const _chunk of part.content); // a file has no place here: read past it
  }
  return Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

function showPage(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: URL_PATTERN,
    doc: {
      summary: 'The unsubscribe page a broadcast links to (all mail, or public topics)',
      addition: true,
      params: LINK_PARAMS,
      response: PAGE,
    },
    access: 'public',
    async handler({ params }) {
      const link = await checkLink(signer, params);
      const prefs = link && (await loadPreferences(db, link.contactId, link.broadcastId));
      if (!prefs) return html(404, invalidLinkPage());
      return html(200, preferencesPage(prefs));
    },
  };
}

function changePreferences(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'POST',
    url: URL_PATTERN,
    doc: {
      summary: 'A change from the unsubscribe page, or an RFC 8058 one-click unsubscribe',
      addition: true,
      params: LINK_PARAMS,
      body: object(
        {
          action: oneOfValues(['unsubscribe_all', 'topics', 'resubscribe'], { description: 'Without it: one-click, unsubscribe from all mail.' }),
          topic: { oneOf: [string(), array(string())], description: 'With action=topics: the ids of the topics to stay subscribed to.' },
          'List-Unsubscribe': { const: 'One-Click' },
        },
        [],
      ),
      response: PAGE,
    },
    access: 'public',
    bodyShape: 'form',
    async handler({ params, body, form }) {
      const link = await checkLink(signer, params);
      if (!link) return html(404, invalidLinkPage());
      const fields = await formFields(body, form);
      const action = typeof fields.action === 'string' ? fields.action : 'one_click';
      const message = await db.tx(async (q) => {
        const prefs = await loadPreferences(q, link.contactId, link.broadcastId);
        if (!prefs) return undefined;
        if (action === 'topics') {
          await saveTopicChoices(q, prefs, new Set(list(fields.topic).map((t) => t.toLowerCase())), link.broadcastId);
          return 'Your preferences have been saved.';
        }
        if (action === 'resubscribe') {
          await resubscribe(q, prefs);
          return `${prefs.contact.email} is subscribed again.`;
        }
        await unsubscribeFromAll(q, prefs, link.broadcastId);
        return `${prefs.contact.email} has been unsubscribed and will receive no more broadcasts.`;
      });
      if (message === undefined) return html(404, invalidLinkPage());
      return html(200, donePage(message));
    },
  };
}

export function unsubscribeRoutes(db: Db): Route[] {
  const signer = signers(db);
  const unsubscribeSigner = () => signer('unsubscribe');
  return [showPage(db, unsubscribeSigner), changePreferences(db, unsubscribeSigner)];
}
