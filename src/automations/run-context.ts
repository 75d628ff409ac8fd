// The data a run's steps read (0015_automations.sql, automation_runs.context): the trigger
// event's payload, the payloads wait_for_event steps received, and the contact. Rules and
// `{var: …}` references name them `event.<key>`, `wait_events.<event name>.<key>` and
// `contact.<field>` (email, first_name, last_name, unsubscribed, id, or a property, also as
// `contact.properties.<key>`).
import type { Body } from '../api/validate.js';
import type { Contact } from '../audience/contact-store.js';
import { isVarRef } from './step-config.js';

export interface RunContext {
  /** The trigger event's name and payload. */
  event_name: string;
  event: Body;
  /** By event name: the payload each wait_for_event step received. */
  wait_events: Record<string, Body>;
}

/** A key of `data` by dotted path; a flat key containing dots ("a.b") wins over nesting. */
function atPath(data: unknown, path: string): unknown {
  if (data === null || typeof data !== 'object') return undefined;
  const obj = data as Body;
  if (Object.hasOwn(obj, path)) return obj[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  return atPath(obj[path.slice(0, dot)], path.slice(dot + 1));
}

function contactField(contact: Contact | undefined, field: string): unknown {
  if (!contact) return undefined;
  switch (field) {
    case 'id':
      return contact.id;
    case 'email':
      return contact.email;
    case 'first_name':
      return contact.firstName;
    case 'last_name':
      return contact.lastName;
    case 'unsubscribed':
      return contact.unsubscribed;
  }
  const key = field.startsWith('properties.') ? field.slice('properties.'.length) : field;
  return Object.hasOwn(contact.properties, key) ? contact.properties[key] : undefined;
}

/** Event names may contain dots: the longest received name that prefixes `path` is meant. */
function waitEventField(waits: Record<string, Body>, path: string): unknown {
  const names = Object.keys(waits)
    .filter((n) => path === n || path.startsWith(`${n}.`))
    .sort((a, b) => b.length - a.length);
  if (names.length === 0) return undefined;
  const name = names[0]!;
  return path === name ? waits[name] : atPath(waits[name], path.slice(name.length + 1));
}

/**
 * A reader of fields for rules and references. `event` overrides the trigger's payload for a
 * wait_for_event filter_rule, which looks at the event that arrived.
 */
export function fieldReader(context: RunContext, contact: Contact | undefined, event: Body = context.event) {
  return (field: string): unknown => {
    const dot = field.indexOf('.');
    const scope = field.slice(0, dot);
    const rest = field.slice(dot + 1);
    if (scope === 'event') return atPath(event, rest);
    if (scope === 'contact') return contactField(contact, rest);
    if (scope === 'wait_events') return waitEventField(context.wait_events ?? {}, rest);
    return undefined;
  };
}

/** A config value with its `{var}` reference read; undefined when the referenced field is absent. */
export function resolveValue(value: unknown, read: (field: string) => unknown): unknown {
  return isVarRef(value) ? read(value.var) : value;
}

/** Whether a rule tree or config value refers to the contact (so it must be loaded). */
export function mentionsContact(value: unknown): boolean {
  return JSON.stringify(value ?? null).includes('"contact.');
}
