// The rule of a condition step, or of a wait_for_event step's filter_rule, as a form
// (src/automations/rules.ts): a rule `{field, operator, value}`, or rules combined by "all of"
// (`and`) or "any of" (`or`), groups inside groups up to the API's depth. The value's kind
// follows the operator: a number for gt/gte/lt/lte, text for contains/starts_with/ends_with,
// none for exists/is_empty, and for eq/neq text, a number, true, false or null as chosen.
import { useId, useState } from 'react';

type Value = string | number | boolean | null;
export type Rule = { type?: string; field?: string; operator?: string; value?: Value; rules?: Rule[] };

const OPERATORS: Record<string, { label: string; kind: 'any' | 'number' | 'string' | 'none' }> = {
  eq: { label: 'is', kind: 'any' },
  neq: { label: 'is not', kind: 'any' },
  gt: { label: 'is more than', kind: 'number' },
  gte: { label: 'is at least', kind: 'number' },
  lt: { label: 'is less than', kind: 'number' },
  lte: { label: 'is at most', kind: 'number' },
  contains: { label: 'contains', kind: 'string' },
  starts_with: { label: 'starts with', kind: 'string' },
  ends_with: { label: 'ends with', kind: 'string' },
  exists: { label: 'is present', kind: 'none' },
  is_empty: { label: 'is empty or absent', kind: 'none' },
};
/** rules.ts MAX_DEPTH: a group may sit at most this many levels down. */
const MAX_DEPTH = 5;

export const emptyRule = (): Rule => ({ type: 'rule', field: '', operator: 'eq', value: '' });
const isGroup = (rule: Rule) => rule.type === 'and' || rule.type === 'or';

/** A number written plainly ("42", "-1.5"): anything else stays text, for the API to judge. */
const NUMBER = /^-?\d+(\.\d+)?$/;

export function RuleEditor({ rule, onChange, fieldsList, invalid }: { rule: Rule; onChange: (rule: Rule) => void; fieldsList: string; invalid?: boolean }) {
  return <RuleNode rule={rule} onChange={onChange} fieldsList={fieldsList} depth={0} invalid={invalid} />;
}

function RuleNode(props: { rule: Rule; onChange: (rule: Rule) => void; onRemove?: () => void; fieldsList: string; depth: number; invalid?: boolean }) {
  const { rule, onChange, depth } = props;
  if (!isGroup(rule)) {
    return (
      <div className="rule-leaf">
        <RuleLeaf {...props} />
        <div className="row">
          {props.onRemove && (
            <button type="button" className="secondary small" onClick={props.onRemove}>
              Remove this rule
            </button>
          )}
          {depth === 0 && (
            <button type="button" className="secondary small" onClick={() => onChange({ type: 'and', rules: [rule, emptyRule()] })}>
              Add another rule
            </button>
          )}
        </div>
      </div>
    );
  }
  return <RuleGroup {...props} />;
}

function RuleGroup({ rule, onChange, onRemove, fieldsList, depth, invalid }: Parameters<typeof RuleNode>[0]) {
  const id = useId();
  const rules = rule.rules ?? [];
  const set = (i: number, next: Rule) => onChange({ ...rule, rules: rules.map((r, n) => (n === i ? next : r)) });
  return (
    <fieldset className="rule-group">
      <legend>
        <label htmlFor={`${id}-join`} className="inline-label">
          Match
        </label>{' '}
        <select id={`${id}-join`} className="inline" value={rule.type} onChange={(e) => onChange({ ...rule, type: e.target.value })}>
          <option value="and">all of these</option>
          <option value="or">any of these</option>
        </select>
      </legend>
      {rules.map((r, i) => (
        <RuleNode
          // The rules have no ids of their own; their place is theirs while edited.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          key={i}
          rule={r}
          onChange={(next) => set(i, next)}
          onRemove={rules.length > 1 ? () => onChange({ ...rule, rules: rules.filter((_, n) => n !== i) }) : undefined}
          fieldsList={fieldsList}
          depth={depth + 1}
          invalid={invalid}
        />
      ))}
      <div className="row">
        <button type="button" className="secondary small" onClick={() => onChange({ ...rule, rules: [...rules, emptyRule()] })}>
          Add a rule
        </button>
        {depth + 1 < MAX_DEPTH && (
          <button type="button" className="secondary small" onClick={() => onChange({ ...rule, rules: [...rules, { type: 'or', rules: [emptyRule()] }] })}>
            Add a group
          </button>
        )}
        {onRemove && (
          <button type="button" className="secondary small" onClick={onRemove}>
            Remove this group
          </button>
        )}
        {!onRemove && rules.length === 1 && (
          <button type="button" className="secondary small" onClick={() => onChange(rules[0]!)}>
            Ungroup
          </button>
        )}
      </div>
    </fieldset>
  );
}

function RuleLeaf({ rule, onChange, fieldsList, invalid }: Parameters<typeof RuleNode>[0]) {
  const id = useId();
  const operator = OPERATORS[rule.operator ?? ''] ?? OPERATORS.eq!;
  const [typed, setText] = useState(rule.value === undefined || rule.value === null ? '' : String(rule.value));
  // What was typed, while it still says the rule's value ("1." for 1 being typed as 1.5); else the
  // value itself (a rule of the group moved into this place when one before it was removed).
  const parsed = typeof rule.value === 'number' && NUMBER.test(typed.trim()) ? Number(typed) : typed;
  const text = parsed === rule.value ? typed : rule.value === undefined || rule.value === null ? '' : String(rule.value);
  const as = rule.value === null ? 'null' : typeof rule.value === 'boolean' ? String(rule.value) : typeof rule.value === 'number' ? 'number' : 'text';
  const withValue = (kind: string, raw: string): Rule => {
    const { value: _old, ...rest } = rule;
    if (kind === 'none') return rest;
    if (kind === 'null') return { ...rest, value: null };
    if (kind === 'true' || kind === 'false') return { ...rest, value: kind === 'true' };
    if (kind === 'number') return { ...rest, value: NUMBER.test(raw.trim()) ? Number(raw) : raw };
    return { ...rest, value: raw };
  };
  const setOperator = (name: string) => {
    const kind = OPERATORS[name]!.kind;
    onChange({ ...withValue(kind === 'none' ? 'none' : kind === 'number' ? 'number' : kind === 'string' ? 'text' : as, text), operator: name });
  };
  const fixed = operator.kind === 'any' && (as === 'null' || as === 'true' || as === 'false');
  return (
    <div className="rule-fields">
      <div>
        <label htmlFor={`${id}-field`}>Field</label>
        <input
          id={`${id}-field`}
          className="code"
          list={fieldsList}
          placeholder="event.plan"
          value={rule.field ?? ''}
          aria-invalid={invalid || undefined}
          aria-describedby={`${id}-field-hint`}
          onChange={(e) => onChange({ ...rule, type: 'rule', field: e.target.value })}
        />
        <p className="hint" id={`${id}-field-hint`}>
          <code>event.…</code>, <code>contact.…</code> or <code>wait_events.&lt;event&gt;.…</code>
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-operator`}>Operator</label>
        <select id={`${id}-operator`} value={rule.operator ?? 'eq'} onChange={(e) => setOperator(e.target.value)}>
          {Object.entries(OPERATORS).map(([name, o]) => (
            <option key={name} value={name}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {operator.kind === 'any' && (
        <div>
          <label htmlFor={`${id}-as`}>Value is</label>
          <select id={`${id}-as`} value={as} onChange={(e) => onChange(withValue(e.target.value, text))}>
            <option value="text">text</option>
            <option value="number">a number</option>
            <option value="true">true</option>
            <option value="false">false</option>
            <option value="null">null (absent)</option>
          </select>
        </div>
      )}
      {operator.kind !== 'none' && !fixed && (
        <div>
          <label htmlFor={`${id}-value`}>Value</label>
          <input
            id={`${id}-value`}
            inputMode={operator.kind === 'number' || as === 'number' ? 'decimal' : undefined}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              onChange(withValue(operator.kind === 'number' ? 'number' : operator.kind === 'string' ? 'text' : as, e.target.value));
            }}
          />
        </div>
      )}
    </div>
  );
}
