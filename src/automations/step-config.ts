// The config of each step type (resend-compat-notes §2.12), checked when an automation is
// written, so that a run never meets a malformed step. Each parser returns the config as
// stored and returned by GET /automations/:id; every message names the step.
import type { ApiError } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Body } from '../api/validate.js';
import { parseName } from '../audience/contact-fields.js';
import { parseEventName } from '../custom-events/event-fields.js';
import { KEY, MAX_KEY_LENGTH, MAX_VARIABLES } from '../templates/variables.js';
import { MAX_DURATION_MS, parseHumanDuration } from './duration.js';
import { FIELD, parseRule } from './rules.js';

export const STEP_TYPES = ['trigger', 'send_email', 'delay', 'wait_for_event', 'condition', 'contact_update', 'contact_delete', 'add_to_segment'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** `{var: "event.x"}`: a value read when the step runs (run-context.ts). */
interface VarRef {
  var: string;
}
type Fail = (message: string) => ApiError;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const MAX_TEXT = 998; // a header line

function only(config: Body, allowed: string[], fail: Fail): void {
  for (const key of Object.keys(config)) {
    if (!allowed.includes(key)) throw fail(`\`config.${key}\` is not a field of this step type.`);
  }
}

function text(config: Body, field: string, fail: Fail, required = false): string | undefined {
  const value = config[field];
  if (value === undefined || value === null) {
    if (required) throw fail(`\`config.${field}\` is required.`);
    return undefined;
  }
  if (typeof value !== 'string' || value.trim() === '') throw fail(`\`config.${field}\` must be a non-empty string.`);
  if (value.length > MAX_TEXT || /[\r\n\0]/.test(value)) throw fail(`\`config.${field}\` must be one line of at most ${MAX_TEXT} characters.`);
  return value;
}

function eventName(config: Body, field: string, fail: Fail): string {
  try {
    return parseEventName(config[field], `config.${field}`);
  } catch (err) {
    throw fail((err as Error).message.replace(/^The /, '').replace(/ field /, ' '));
  }
}

function duration(config: Body, field: string, fail: Fail, required: boolean): string | undefined {
  const value = config[field];
  if (value === undefined || value === null) {
    if (required) throw fail(`\`config.${field}\` is required.`);
    return undefined;
  }
  const ms = typeof value === 'string' ? parseHumanDuration(value) : undefined;
  if (ms === undefined || ms > MAX_DURATION_MS) {
    throw fail(`\`config.${field}\` must be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days.`);
  }
  return value as string;
}

export function isVarRef(value: unknown): value is VarRef {
  return isObject(value) && Object.keys(value).length === 1 && typeof value.var === 'string';
}

function varRef(value: Body, path: string, fail: Fail): VarRef {
  if (!isVarRef(value) || !FIELD.test(value.var)) {
    throw fail(`\`${path}\` must be a value or \`{"var": "event.<field>"}\` (or \`contact.<field>\`, \`wait_events.<event>.<field>\`).`);
  }
  return { var: value.var };
}

/** A value of contact_update or of template variables: one of `kinds`, or a variable reference. */
function valueOrVar(value: unknown, path: string, kinds: string[], fail: Fail): unknown {
  if (isObject(value)) return varRef(value, path, fail);
  const kind = value === null ? 'null' : typeof value;
  if (!kinds.includes(kind) || (kind === 'number' && !Number.isFinite(value))) {
    throw fail(`\`${path}\` must be ${kinds.map((k) => (k === 'null' ? 'null' : `a ${k}`)).join(', ')} or \`{"var": …}\`.`);
  }
  return value;
}

const PARSERS: Record<StepType, (config: Body, fail: Fail) => Body> = {
  trigger(config, fail) {
    only(config, ['event_name'], fail);
    return { event_name: eventName(config, 'event_name', fail) };
  },

  send_email(config, fail) {
    only(config, ['template', 'subject', 'from', 'reply_to', 'topic_id'], fail);
    const template = config.template;
    if (!isObject(template)) throw fail('`config.template` must be an object: `{id, variables?}`.');
    for (const key of Object.keys(template))
      if (key !== 'id' && key !== 'variables') throw fail(`\`config.template.${key}\` is not a field of a template reference.`);
    if (typeof template.id !== 'string' || template.id.trim() === '') throw fail('`config.template.id` must be a template id or alias.');
    const out: Body = { template: { id: template.id } };
    if (template.variables !== undefined && template.variables !== null) {
      if (!isObject(template.variables)) throw fail('`config.template.variables` must be an object.');
      const entries = Object.entries(template.variables);
      if (entries.length > MAX_VARIABLES) throw fail(`\`config.template.variables\` must have at most ${MAX_VARIABLES} variables.`);
      const variables: Body = {};
      for (const [key, value] of entries) {
        if (!KEY.test(key) || key.length > MAX_KEY_LENGTH)
          throw fail(`\`config.template.variables\` keys must be ASCII letters, digits and \`_\` (at most ${MAX_KEY_LENGTH}).`);
        variables[key] = valueOrVar(value, `config.template.variables.${key}`, ['string', 'number', 'boolean'], fail);
      }
      (out.template as Body).variables = variables;
    }
    for (const field of ['subject', 'from']) {
      const value = text(config, field, fail);
      if (value !== undefined) out[field] = value;
    }
    const replyTo = config.reply_to;
    if (replyTo !== undefined && replyTo !== null) {
      const list = Array.isArray(replyTo) ? replyTo : [replyTo];
      if (list.length === 0 || list.length > 50) throw fail('`config.reply_to` must be an address or 1 to 50 addresses.');
      for (const address of list) text({ reply_to: address }, 'reply_to', fail, true);
      out.reply_to = replyTo;
    }
    // Scoped to a topic: sent only if the contact is subscribed to it (src/emails/apply-topic.ts).
    if (config.topic_id !== undefined && config.topic_id !== null) {
      if (!isUuid(config.topic_id)) throw fail('`config.topic_id` must be a topic id.');
      out.topic_id = config.topic_id.toLowerCase();
    }
    return out;
  },

  delay(config, fail) {
    only(config, ['duration'], fail);
    return { duration: duration(config, 'duration', fail, true) };
  },

  wait_for_event(config, fail) {
    only(config, ['event_name', 'timeout', 'filter_rule'], fail);
    const out: Body = { event_name: eventName(config, 'event_name', fail) };
    const timeout = duration(config, 'timeout', fail, false);
    if (timeout !== undefined) out.timeout = timeout;
    if (config.filter_rule !== undefined && config.filter_rule !== null) out.filter_rule = parseRule(config.filter_rule, 'config.filter_rule', fail);
    return out;
  },

  condition(config, fail) {
    return parseRule(config, 'config', fail) as unknown as Body;
  },

  contact_update(config, fail) {
    only(config, ['first_name', 'last_name', 'unsubscribed', 'properties'], fail);
    const out: Body = {};
    for (const field of ['first_name', 'last_name']) {
      if (config[field] === undefined) continue;
      out[field] = valueOrVar(config[field], `config.${field}`, ['string', 'null'], fail);
      // A literal name is held to the contacts API's rules now, not refused at every run.
      if (typeof out[field] === 'string') {
        try {
          parseName(out[field], `config.${field}`);
        } catch (err) {
          throw fail((err as Error).message.replace(/^The (`[^`]+`) field/, '$1'));
        }
      }
    }
    if (config.unsubscribed !== undefined) out.unsubscribed = valueOrVar(config.unsubscribed, 'config.unsubscribed', ['boolean'], fail);
    if (config.properties !== undefined) {
      if (!isObject(config.properties)) throw fail('`config.properties` must be an object of property keys to values.');
      out.properties = Object.fromEntries(
        Object.entries(config.properties).map(([key, value]) => [
          key,
          valueOrVar(value, `config.properties.${key}`, ['string', 'number', 'boolean', 'null'], fail),
        ]),
      );
    }
    if (Object.keys(out).length === 0) throw fail('`config` must change at least one of first_name, last_name, unsubscribed, properties.');
    return out;
  },

  contact_delete(config, fail) {
    only(config, [], fail);
    return {};
  },

  add_to_segment(config, fail) {
    only(config, ['segment_id'], fail);
    if (!isUuid(config.segment_id)) throw fail('`config.segment_id` must be a segment id.');
    return { segment_id: config.segment_id };
  },
};

/** The stored config of a step of `type`, or the ApiError from `fail`. */
export function parseStepConfig(type: StepType, config: unknown, fail: Fail): Body {
  if (!isObject(config)) throw fail('`config` must be an object.');
  return PARSERS[type](config, fail);
}
