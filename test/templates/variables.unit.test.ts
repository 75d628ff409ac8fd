// Template variables without a database: which placeholders a string uses, how each value is
// checked against its variable's type, how a placeholder is resolved (sent value, inline
// fallback, fallback_value, else a 422 naming it), that values are data and never markup or
// further placeholders, and that a stored variable keeps its id and created_at across updates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkValue,
  KEY,
  MAX_STRING_VALUE,
  placeholderKeys,
  renderString,
  RESERVED_KEYS,
  storedVariables,
  type RenderInput,
  type TemplateVariable,
} from '../../src/templates/variables.js';

const isValidation = (message: string | RegExp) => (err: any) =>
  err.errorName === 'validation_error' && err.statusCode === 422 && (typeof message === 'string' ? err.message === message : message.test(err.message));

const DEFINITIONS: RenderInput['definitions'] = new Map([
  ['NAME', { type: 'string', fallback_value: null }],
  ['PRICE', { type: 'number', fallback_value: 25 }],
  ['CURRENCY', { type: 'string', fallback_value: 'EUR' }],
  ['EMPTY', { type: 'string', fallback_value: '' }],
  ['ZERO', { type: 'number', fallback_value: 0 }],
]);
const render = (source: string, values: RenderInput['values'] = {}, mode: 'html' | 'text' = 'text') =>
  renderString(source, { definitions: DEFINITIONS, values }, mode);

describe('unit: placeholderKeys', () => {
  it('lists the keys of a string once each, in order of first use, with or without a fallback or spaces', () => {
    assert.deepEqual(placeholderKeys('{{{B}}} {{{ A }}} {{{B|x}}} {{{C|}}} {{{A | y }}}'), ['B', 'A', 'C']);
  });

  it('gives no keys for null, undefined, an empty string or text without placeholders', () => {
    assert.deepEqual(placeholderKeys(null), []);
    assert.deepEqual(placeholderKeys(undefined), []);
    assert.deepEqual(placeholderKeys(''), []);
    assert.deepEqual(placeholderKeys('Hello {{NAME}} and {NAME}'), []);
  });

  it('ignores keys with characters outside ASCII letters, digits and _', () => {
    assert.deepEqual(placeholderKeys('{{{FIRST-NAME}}} {{{prénom}}} {{{a.b}}} {{{ok_1}}}'), ['ok_1']);
  });

  it('ends a fallback at the first }, so a fallback holding } is no placeholder', () => {
    assert.deepEqual(placeholderKeys('{{{D|a}b}}}'), []);
  });
});

describe('unit: checkValue', () => {
  it('returns strings and numbers as they are', () => {
    assert.equal(checkValue('Ann', 'string', 'X'), 'Ann');
    assert.equal(checkValue('', 'string', 'X'), '');
    assert.equal(checkValue(499, 'number', 'X'), 499);
    assert.equal(checkValue(-0.5, 'number', 'X'), -0.5);
    assert.equal(checkValue(7, 'string', 'X'), 7, 'a number is accepted for a string variable');
    assert.equal(checkValue('free text', undefined, 'X'), 'free text', 'no definition: any string');
  });

  it('refuses a string for a number variable, naming the value', () => {
    assert.throws(() => checkValue('499', 'number', 'The template variable `PRICE`'), isValidation('The template variable `PRICE` must be a number.'));
  });

  it('refuses NaN, ±Infinity and numbers past MAX_SAFE_INTEGER, and accepts MAX_SAFE_INTEGER itself', () => {
    for (const n of [NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER - 2]) {
      assert.throws(() => checkValue(n, 'number', 'X'), isValidation('X must be a finite number of at most 9007199254740991.'), String(n));
    }
    assert.equal(checkValue(Number.MAX_SAFE_INTEGER, 'number', 'X'), Number.MAX_SAFE_INTEGER);
    assert.equal(checkValue(-Number.MAX_SAFE_INTEGER, 'number', 'X'), -Number.MAX_SAFE_INTEGER);
  });

  it('accepts strings of up to 2000 UTF-16 code units and refuses one more', () => {
    assert.equal(MAX_STRING_VALUE, 2000);
    assert.equal(checkValue('a'.repeat(2000), 'string', 'X'), 'a'.repeat(2000));
    assert.throws(() => checkValue('a'.repeat(2001), 'string', 'X'), isValidation('X must be at most 2000 characters.'));
    // An emoji is two code units: 1000 fit, 1001 do not.
    assert.equal(checkValue('😀'.repeat(1000), 'string', 'X'), '😀'.repeat(1000));
    assert.throws(() => checkValue('😀'.repeat(1001), 'string', 'X'), isValidation('X must be at most 2000 characters.'));
  });

  it('refuses booleans, null, undefined, objects and arrays', () => {
    for (const value of [true, false, null, undefined, {}, [], ['a']]) {
      assert.throws(() => checkValue(value, 'string', 'X'), isValidation('X must be a string or a number.'), JSON.stringify(value));
    }
  });
});

describe('unit: renderString', () => {
  it('uses the sent value first, then the inline fallback, then the fallback_value', () => {
    assert.equal(render('{{{NAME|there}}}', { NAME: 'Ann' }), 'Ann');
    assert.equal(render('{{{NAME|there}}}'), 'there');
    assert.equal(render('{{{CURRENCY|USD}}}'), 'USD', 'the inline fallback wins over fallback_value');
    assert.equal(render('{{{CURRENCY}}}'), 'EUR');
    assert.equal(render('{{{PRICE}}} {{{CURRENCY}}}', { PRICE: 499 }), '499 EUR');
  });

  it('renders falsy values and fallbacks as they are: 0, the empty string, an empty inline fallback', () => {
    assert.equal(render('[{{{PRICE}}}]', { PRICE: 0 }), '[0]');
    assert.equal(render('[{{{ZERO}}}]'), '[0]');
    assert.equal(render('[{{{EMPTY}}}]'), '[]');
    assert.equal(render('[{{{NAME|}}}]'), '[]');
    assert.equal(render('[{{{NAME|there}}}]', { NAME: '' }), '[]', 'an empty sent value is a value');
  });

  it('keeps the inline fallback verbatim: spaces and | included', () => {
    assert.equal(render('[{{{ NAME |  dear friend }}}]'), '[  dear friend ]');
    assert.equal(render('[{{{NAME|a|b}}}]'), '[a|b]');
  });

  it('refuses a placeholder with no value anywhere, naming the variable', () => {
    assert.throws(
      () => render('Hi {{{NAME}}}'),
      isValidation('Missing value for the template variable `NAME`: send it in `template.variables` or give it a fallback value.'),
    );
    assert.throws(() => render('{{{UNDEFINED_KEY}}}'), isValidation(/`UNDEFINED_KEY`/));
  });

  it('never reads a value from the prototype: toString, constructor and __proto__ are missing values', () => {
    for (const key of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      assert.throws(
        () => render(`{{{${key}}}}`),
        isValidation(`Missing value for the template variable \`${key}\`: send it in \`template.variables\` or give it a fallback value.`),
      );
    }
  });

  it('escapes every value and fallback in html, and none in text', () => {
    const value = `<script>alert("x")</script> & 'y'`;
    assert.equal(render('<p>{{{NAME}}}</p>', { NAME: value }, 'html'), '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>');
    assert.equal(render('<p>{{{NAME|<b>you</b>}}}</p>', {}, 'html'), '<p>&lt;b&gt;you&lt;/b&gt;</p>');
    assert.equal(render('{{{NAME}}}', { NAME: value }, 'text'), value);
  });

  it('leaves the template itself untouched: only substituted values are escaped', () => {
    assert.equal(render('<a href="x?a=1&b=2">{{{NAME}}}</a>', { NAME: 'A&B' }, 'html'), '<a href="x?a=1&b=2">A&amp;B</a>');
  });

  it('inserts values literally: no $ replacement patterns, no second pass over placeholders in a value', () => {
    assert.equal(render('{{{NAME}}}', { NAME: "$& $1 $$ $` $'" }), "$& $1 $$ $` $'");
    assert.equal(render('{{{NAME}}}', { NAME: '{{{PRICE}}}' }), '{{{PRICE}}}');
  });

  it('passes CR/LF through in text mode: the subject is checked for line breaks after rendering, by the caller', () => {
    assert.equal(render('Order {{{NAME}}}', { NAME: 'x\r\nBcc: victim@example.org' }), 'Order x\r\nBcc: victim@example.org');
  });

  it('keeps unicode values and renders numbers with String()', () => {
    assert.equal(render('{{{NAME}}}', { NAME: 'Zoë 🎉 日本' }, 'html'), 'Zoë 🎉 日本');
    assert.equal(render('{{{PRICE}}}', { PRICE: 1e21 }), '1e+21');
    assert.equal(render('{{{PRICE}}}', { PRICE: 0.1 + 0.2 }), '0.30000000000000004');
  });

  it('leaves text that is not a placeholder as it is, and renders the inner part of four braces', () => {
    assert.equal(render('{{NAME}} {{{prénom}}} {{{ }}}'), '{{NAME}} {{{prénom}}} {{{ }}}');
    assert.equal(render('{{{{NAME}}}}', { NAME: 'Ann' }), '{Ann}');
    assert.equal(render(''), '');
  });
});

describe('unit: variable definitions', () => {
  it('allows keys of ASCII letters, digits and _ only', () => {
    for (const key of ['A', 'first_name', 'X1', '_']) assert.equal(KEY.test(key), true, key);
    for (const key of ['', 'FIRST-NAME', 'a b', 'ü', 'a.b', 'a\n']) assert.equal(KEY.test(key), false, JSON.stringify(key));
  });

  it('reserves the contact fields and the unsubscribe link', () => {
    assert.deepEqual([...RESERVED_KEYS].sort(), ['EMAIL', 'FIRST_NAME', 'LAST_NAME', 'UNSUBSCRIBE_URL', 'contact', 'this']);
  });

  it('keeps the id and created_at of a variable that keeps its key, and drops the others', () => {
    const previous: TemplateVariable[] = [
      { id: 'var-a', key: 'A', type: 'number', fallback_value: 3, created_at: 'T0', updated_at: 'T0' },
      { id: 'var-c', key: 'C', type: 'string', fallback_value: null, created_at: 'T0', updated_at: 'T0' },
    ];
    let n = 0;
    const stored = storedVariables(
      [
        { key: 'A', type: 'string', fallback_value: 'x' },
        { key: 'B', type: 'number', fallback_value: null },
      ],
      previous,
      'T1',
      () => `new-${++n}`,
    );
    assert.deepEqual(stored, [
      { id: 'var-a', key: 'A', type: 'string', fallback_value: 'x', created_at: 'T0', updated_at: 'T1' },
      { id: 'new-1', key: 'B', type: 'number', fallback_value: null, created_at: 'T1', updated_at: 'T1' },
    ]);
  });

  it('stores nothing for no inputs, and asks for a new id per new variable', () => {
    let calls = 0;
    assert.deepEqual(
      storedVariables([], [], 'T', () => `id${++calls}`),
      [],
    );
    assert.equal(calls, 0);
    const two = storedVariables(
      [
        { key: 'A', type: 'string', fallback_value: null },
        { key: 'B', type: 'string', fallback_value: null },
      ],
      [],
      'T',
      () => `id${++calls}`,
    );
    assert.deepEqual(
      two.map((v) => v.id),
      ['id1', 'id2'],
    );
  });
});
