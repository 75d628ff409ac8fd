// The side panel of the automation editor (automation-editor.tsx): the selected step's key, the
// fields of its type's config as the API's STEP_CONFIG_SCHEMAS has them (src/automations/
// step-config.ts), where each of its branches leads, and Delete. Choices the account has are
// offered from the API: published templates (GET /templates), segments, topics, the custom
// events defined (GET /events) and contact properties, for field names. A value a step reads
// when it runs (`{"var": "event.plan"}`) is a value marked "from a field".
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, type RefObject, useId, useState } from 'react';
import { type Answer, api, type Item } from '../api';
import { STEP_NAMES } from '../automation-graph';
import { follow } from '../router';
import type { Segment, Topic } from './audience-common';
import {
  BRANCH_PHRASES,
  branchesOf,
  type Config,
  choices,
  type ConnectionType,
  type Draft,
  type DraftStep,
  type Problem,
  possibleTargets,
  type StepFailure,
} from './automation-draft';
import { emptyRule, type Rule, RuleEditor } from './automation-rule-editor';

type TemplateSummary = Item<'/templates'>;
type Template = Answer<'/templates/{id}'>;
type EventDefinition = Item<'/events'>;
type Property = Item<'/contact-properties'>;

/** The fields every rule can read of a contact (rules.ts), before the account's own properties. */
const CONTACT_FIELDS = ['contact.email', 'contact.first_name', 'contact.last_name', 'contact.unsubscribed'];

export function StepForm(props: {
  step: DraftStep;
  draft: Draft;
  problems: Problem[];
  failure?: StepFailure;
  onChange: (step: DraftStep) => void;
  onConnect: (branch: ConnectionType, index: number, to: number | undefined) => void;
  onDelete: () => void;
  headingRef: RefObject<HTMLHeadingElement | null>;
}) {
  const { step, failure } = props;
  const id = useId();
  const setConfig = (config: Config) => props.onChange({ ...step, config });
  const field = (name: string) => ({
    'aria-invalid': failure?.field === name || undefined,
    'aria-describedby': failure?.field === name ? `${id}-failure` : undefined,
  });
  return (
    <section className="panel step-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={props.headingRef}>
        {STEP_NAMES[step.type] ?? step.type}: <code>{step.key || '(no key)'}</code>
      </h2>
      {failure && (
        <p className="error" role="alert" id={`${id}-failure`}>
          {failure.message}
        </p>
      )}
      {props.problems.length > 0 && (
        <ul className="step-problems">
          {props.problems.map((p) => (
            <li key={p.message} className={p.blocking ? 'error' : 'warning'}>
              {p.message}
            </li>
          ))}
        </ul>
      )}
      <label htmlFor={`${id}-key`}>Key</label>
      <input
        id={`${id}-key`}
        className="code"
        value={step.key}
        maxLength={100}
        aria-describedby={`${id}-key-hint`}
        onChange={(e) => props.onChange({ ...step, key: e.target.value })}
      />
      <p className="hint" id={`${id}-key-hint`}>
        Names the step in runs and in the API: letters, digits, <code>_ - . :</code>
      </p>
      <ConfigFields step={step} setConfig={setConfig} field={field} id={id} invalid={failure !== undefined && failure.field === undefined} />
      <Branches step={step} draft={props.draft} onConnect={props.onConnect} />
      <div className="row step-delete">
        <button type="button" className="danger" onClick={props.onDelete}>
          Delete this step
        </button>
      </div>
    </section>
  );
}

type FieldProps = (name: string) => { 'aria-invalid': true | undefined; 'aria-describedby': string | undefined };

function ConfigFields({
  step,
  setConfig,
  field,
  id,
  invalid,
}: {
  step: DraftStep;
  setConfig: (config: Config) => void;
  field: FieldProps;
  id: string;
  invalid: boolean;
}) {
  const c = step.config;
  const set = (name: string, value: unknown) => {
    const next = { ...c };
    if (value === undefined) delete next[name];
    else next[name] = value;
    setConfig(next);
  };
  const text = (name: string) => (typeof c[name] === 'string' ? (c[name] as string) : '');
  switch (step.type) {
    case 'trigger':
      return (
        <>
          <EventNameField
            id={`${id}-event`}
            label="Event that starts a run"
            value={text('event_name')}
            onChange={(v) => set('event_name', v)}
            {...field('event_name')}
          />
          <p className="hint">
            Each event of this name your application sends (POST /events/send, with the contact's email or id) starts a run for that contact.
          </p>
        </>
      );
    case 'send_email':
      return <SendEmailFields config={c} set={set} field={field} id={id} />;
    case 'delay':
      return (
        <>
          <label htmlFor={`${id}-duration`}>Wait for</label>
          <input id={`${id}-duration`} placeholder="3 days" value={text('duration')} onChange={(e) => set('duration', e.target.value)} {...field('duration')} />
          <p className="hint">A duration such as “30 minutes”, “1 hour”, “3 days” or “1h 30m”: at most 30 days.</p>
        </>
      );
    case 'wait_for_event': {
      const filter = c.filter_rule as Rule | undefined;
      return (
        <>
          <EventNameField
            id={`${id}-event`}
            label="Event to wait for"
            value={text('event_name')}
            onChange={(v) => set('event_name', v)}
            {...field('event_name')}
          />
          <label htmlFor={`${id}-timeout`}>Wait at most (optional)</label>
          <input
            id={`${id}-timeout`}
            placeholder="7 days"
            value={text('timeout')}
            onChange={(e) => set('timeout', e.target.value || undefined)}
            {...field('timeout')}
          />
          <p className="hint">A duration, at most 30 days. Without it the run waits for as long as the event takes.</p>
          <label className="choice">
            <input type="checkbox" checked={filter !== undefined} onChange={(e) => set('filter_rule', e.target.checked ? emptyRule() : undefined)} />
            Only an event that matches a rule
          </label>
          {filter && (
            <fieldset className="rule">
              <legend>The event must match</legend>
              <RuleEditor rule={filter} onChange={(r) => set('filter_rule', r)} fieldsList={`${id}-fields`} invalid={field('filter_rule')['aria-invalid']} />
              <FieldSuggestions id={`${id}-fields`} />
            </fieldset>
          )}
        </>
      );
    }
    case 'condition':
      return (
        <fieldset className="rule">
          <legend>Takes the “yes” branch when</legend>
          <RuleEditor rule={c as Rule} onChange={(r) => setConfig(r as Config)} fieldsList={`${id}-fields`} invalid={invalid} />
          <FieldSuggestions id={`${id}-fields`} />
        </fieldset>
      );
    case 'contact_update':
      return <ContactUpdateFields config={c} set={set} id={id} />;
    case 'contact_delete':
      return <p className="hint">Deletes the run's contact. It has nothing to set.</p>;
    case 'add_to_segment':
      return <SegmentField id={`${id}-segment`} value={text('segment_id')} onChange={(v) => set('segment_id', v)} {...field('segment_id')} />;
    default:
      return null;
  }
}

type InputProps = { id: string; value: string; onChange: (value: string) => void; 'aria-invalid'?: true; 'aria-describedby'?: string };

function EventNameField({ label, ...props }: InputProps & { label: string }) {
  const events = useQuery(choices<EventDefinition>('/events'));
  return (
    <>
      <label htmlFor={props.id}>{label}</label>
      <input
        id={props.id}
        className="code"
        list={`${props.id}-known`}
        placeholder="user.signed_up"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props['aria-invalid']}
        aria-describedby={props['aria-describedby']}
      />
      <datalist id={`${props.id}-known`}>
        {(events.data?.data ?? []).map((e) => (
          <option key={e.id} value={e.name} />
        ))}
      </datalist>
    </>
  );
}

function SegmentField(props: InputProps) {
  const segments = useQuery(choices<Segment>('/segments'));
  const list = segments.data?.data ?? [];
  return (
    <>
      <label htmlFor={props.id}>Segment</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props['aria-invalid']}
        aria-describedby={props['aria-describedby']}
      >
        <option value="">Choose a segment…</option>
        {props.value && !list.some((s) => s.id === props.value) && <option value={props.value}>{props.value} (not found)</option>}
        {list.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
      {segments.data && list.length === 0 && (
        <p className="hint">
          There is no segment yet:{' '}
          <a href="/dashboard/audience/segments" onClick={follow('/audience/segments')}>
            create one
          </a>
          .
        </p>
      )}
    </>
  );
}

function SendEmailFields({ config, set, field, id }: { config: Config; set: (name: string, value: unknown) => void; field: FieldProps; id: string }) {
  const templates = useQuery(choices<TemplateSummary>('/templates'));
  const topics = useQuery(choices<Topic>('/topics'));
  const ref = (config.template ?? {}) as { id?: string; variables?: Record<string, unknown> };
  const published = (templates.data?.data ?? []).filter((t) => t.status === 'published');
  const known = published.find((t) => t.id === ref.id || t.alias === ref.id);
  const chosen = useQuery({
    queryKey: ['template', known?.id],
    queryFn: () => api<Template>('GET', `/templates/${known!.id}`),
    enabled: known !== undefined,
  });
  const setTemplate = (next: typeof ref) => set('template', next.variables && Object.keys(next.variables).length === 0 ? { id: next.id } : next);
  const text = (name: string) => (typeof config[name] === 'string' ? (config[name] as string) : '');
  const replyTo = Array.isArray(config.reply_to) ? (config.reply_to as string[]).join(', ') : text('reply_to');
  return (
    <>
      <label htmlFor={`${id}-template`}>Template</label>
      <select
        id={`${id}-template`}
        value={ref.id ?? ''}
        onChange={(e) => setTemplate({ ...ref, id: e.target.value })}
        {...field('template')}
        aria-describedby={[field('template')['aria-describedby'], `${id}-template-hint`].filter(Boolean).join(' ')}
      >
        <option value="">Choose a published template…</option>
        {ref.id && !published.some((t) => t.id === ref.id) && (
          <option value={ref.id}>
            {known ? known.name : ref.id}
            {known ? '' : ' (not a published template)'}
          </option>
        )}
        {published.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-template-hint`}>
        Only published templates can be sent.{' '}
        <a href="/dashboard/templates" onClick={follow('/templates')}>
          Templates
        </a>
      </p>
      <Pairs
        legend="Template variables (optional)"
        addLabel="Add a variable"
        keyLabel="Variable"
        id={`${id}-variables`}
        suggestions={(chosen.data?.variables ?? []).map((v) => v.key)}
        value={ref.variables ?? {}}
        onChange={(variables) => setTemplate({ ...ref, variables })}
      />
      <label htmlFor={`${id}-subject`}>Subject (optional: the template's otherwise)</label>
      <input id={`${id}-subject`} value={text('subject')} onChange={(e) => set('subject', e.target.value || undefined)} {...field('subject')} />
      <label htmlFor={`${id}-from`}>From (optional: the template's otherwise)</label>
      <input
        id={`${id}-from`}
        placeholder="Acme <hello@acme.com>"
        value={text('from')}
        onChange={(e) => set('from', e.target.value || undefined)}
        {...field('from')}
      />
      <label htmlFor={`${id}-reply-to`}>Reply-to (optional, comma-separated)</label>
      <input
        id={`${id}-reply-to`}
        value={replyTo}
        onChange={(e) => {
          const list = e.target.value
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean);
          set('reply_to', list.length === 0 ? undefined : list.length === 1 ? list[0] : list);
        }}
        {...field('reply_to')}
      />
      <label htmlFor={`${id}-topic`}>Topic (optional)</label>
      <select id={`${id}-topic`} value={text('topic_id')} onChange={(e) => set('topic_id', e.target.value || undefined)} {...field('topic_id')}>
        <option value="">No topic: sent to every contact</option>
        {(topics.data?.data ?? []).map((t) => (
          <option key={t.id} value={t.id}>
            Only if subscribed to {t.name}
          </option>
        ))}
      </select>
    </>
  );
}

/** A contact update: the names, unsubscribed, properties; a field left empty is left as it is. */
function ContactUpdateFields({ config, set, id }: { config: Config; set: (name: string, value: unknown) => void; id: string }) {
  const properties = useQuery(choices<Property>('/contact-properties'));
  const unsubscribed = config.unsubscribed;
  return (
    <>
      <ValueField id={`${id}-first-name`} label="First name" value={config.first_name} onChange={(v) => set('first_name', v)} />
      <ValueField id={`${id}-last-name`} label="Last name" value={config.last_name} onChange={(v) => set('last_name', v)} />
      <label htmlFor={`${id}-unsubscribed`}>Unsubscribed</label>
      <select
        id={`${id}-unsubscribed`}
        value={typeof unsubscribed === 'boolean' ? String(unsubscribed) : unsubscribed === undefined ? '' : 'var'}
        onChange={(e) => set('unsubscribed', e.target.value === '' ? undefined : e.target.value === 'var' ? unsubscribed : e.target.value === 'true')}
      >
        <option value="">Leave as it is</option>
        <option value="true">Unsubscribe the contact</option>
        <option value="false">Subscribe the contact again</option>
        {isVar(unsubscribed) && <option value="var">From the field {unsubscribed.var}</option>}
      </select>
      <Pairs
        legend="Properties"
        addLabel="Add a property"
        keyLabel="Property"
        id={`${id}-properties`}
        suggestions={(properties.data?.data ?? []).map((p) => p.key)}
        value={(config.properties ?? {}) as Record<string, unknown>}
        onChange={(next) => set('properties', Object.keys(next).length ? next : undefined)}
      />
      <p className="hint">A name left empty is left as it is. At least one change is needed.</p>
    </>
  );
}

const isVar = (v: unknown): v is { var: string } => typeof v === 'object' && v !== null && typeof (v as { var?: unknown }).var === 'string';

/** A value, or a field read when the step runs (`{"var": "event.name"}`); empty: left out. */
function ValueField({ id, label, value, onChange }: { id: string; label: ReactNode; value: unknown; onChange: (value: unknown) => void }) {
  const fromField = isVar(value);
  const shown = fromField ? value.var : value === undefined || value === null ? '' : String(value);
  const emit = (raw: string, asField: boolean) => onChange(raw === '' ? undefined : asField ? { var: raw } : raw);
  return (
    <div className="value-field">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} className={fromField ? 'code' : undefined} value={shown} onChange={(e) => emit(e.target.value, fromField)} />
        <label className="choice">
          <input type="checkbox" checked={fromField} onChange={(e) => emit(shown, e.target.checked)} />
          from a field
          <span className="visually-hidden"> (for {label})</span>
        </label>
      </div>
    </div>
  );
}

/** Keys and their values (template variables, contact properties): a row each, added and removed. */
function Pairs(props: {
  legend: string;
  addLabel: string;
  keyLabel: string;
  id: string;
  suggestions: string[];
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
}) {
  // Rows are edited as a list, so a key being typed (empty, or briefly another row's) keeps its row.
  const [rows, setRows] = useState<[string, unknown][]>(() => Object.entries(props.value));
  const commit = (next: [string, unknown][]) => {
    setRows(next);
    props.onChange(Object.fromEntries(next.filter(([k, v]) => k !== '' && v !== undefined)));
  };
  return (
    <fieldset className="pairs">
      <legend>{props.legend}</legend>
      {rows.map(([key, value], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a row's place is its identity while its key is typed
        <div className="pair" key={i}>
          <div>
            <label htmlFor={`${props.id}-${i}-key`}>
              {props.keyLabel} {i + 1}
            </label>
            <input
              id={`${props.id}-${i}-key`}
              className="code"
              list={`${props.id}-known`}
              value={key}
              onChange={(e) => commit(rows.map((r, n) => (n === i ? [e.target.value, r[1]] : r)))}
            />
          </div>
          <ValueField
            id={`${props.id}-${i}-value`}
            label={`Value ${i + 1}`}
            value={value}
            onChange={(v) => commit(rows.map((r, n) => (n === i ? [r[0], v] : r)))}
          />
          <button type="button" className="secondary small" onClick={() => commit(rows.filter((_, n) => n !== i))}>
            Remove<span className="visually-hidden"> {key || `${props.keyLabel.toLowerCase()} ${i + 1}`}</span>
          </button>
        </div>
      ))}
      <datalist id={`${props.id}-known`}>
        {props.suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <button type="button" className="secondary small" onClick={() => setRows([...rows, ['', undefined]])}>
        {props.addLabel}
      </button>
    </fieldset>
  );
}

function FieldSuggestions({ id }: { id: string }) {
  const properties = useQuery(choices<Property>('/contact-properties'));
  const events = useQuery(choices<EventDefinition>('/events'));
  const eventFields = new Set((events.data?.data ?? []).flatMap((e) => Object.keys(e.schema ?? {})).map((k) => `event.${k}`));
  return (
    <datalist id={id}>
      {[...eventFields, ...CONTACT_FIELDS, ...(properties.data?.data ?? []).map((p) => `contact.${p.key}`)].map((f) => (
        <option key={f} value={f} />
      ))}
    </datalist>
  );
}

/** Where each of the step's branches leads: a step, or nowhere (the run ends there). */
function Branches({
  step,
  draft,
  onConnect,
}: {
  step: DraftStep;
  draft: Draft;
  onConnect: (branch: ConnectionType, index: number, to: number | undefined) => void;
}) {
  const id = useId();
  const [more, setMore] = useState<ConnectionType[]>([]);
  const targets = possibleTargets(draft, step.id);
  const own = draft.connections.filter((c) => c.from === step.id);
  // A branch the editor does not offer for the type, that the automation has (wait_for_event's `default`), is shown too.
  const branches = [...new Set([...branchesOf(step.type), ...own.map((c) => c.type)])];
  const keyOf = (to: number) => draft.steps.find((s) => s.id === to)?.key ?? '?';
  return (
    <fieldset className="branches">
      <legend>Next</legend>
      {branches.map((branch) => {
        const going = own.filter((c) => c.type === branch).map((c) => c.to);
        const slots = going.length === 0 || more.includes(branch) ? [...going, undefined] : going;
        return (
          <div key={branch} className="branch">
            {slots.map((to, i) => {
              const choices = to === undefined || targets.some((t) => t.id === to) ? targets : [...targets, draft.steps.find((s) => s.id === to)!];
              return (
                <div key={to ?? 'new'}>
                  <label htmlFor={`${id}-${branch}-${i}`}>
                    {i === 0 ? BRANCH_PHRASES[branch] : `${BRANCH_PHRASES[branch]} also`}
                    {branch === 'default' && step.type === 'wait_for_event' ? ' (when the event comes)' : ''}
                  </label>
                  <select
                    id={`${id}-${branch}-${i}`}
                    value={to ?? ''}
                    onChange={(e) => {
                      onConnect(branch, i, e.target.value === '' ? undefined : Number(e.target.value));
                      if (to === undefined) setMore(more.filter((b) => b !== branch));
                    }}
                  >
                    <option value="">{to === undefined && i > 0 ? 'Choose a step…' : 'Nothing: the run ends here'}</option>
                    {choices.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.key} ({STEP_NAMES[s.type] ?? s.type})
                      </option>
                    ))}
                  </select>
                </div>
              );
            })}
            {going.length > 0 && !more.includes(branch) && targets.some((t) => !going.includes(t.id)) && (
              <button type="button" className="secondary small" onClick={() => setMore([...more, branch])}>
                Also lead to another step
                <span className="visually-hidden">
                  {' '}
                  ({BRANCH_PHRASES[branch].replace(/, then$/, '').toLowerCase()}, after {going.map(keyOf).join(', ')})
                </span>
              </button>
            )}
          </div>
        );
      })}
      {targets.length === 0 && <p className="hint">Add another step for this one to lead to.</p>}
    </fieldset>
  );
}
