// The few controls every page shares, written plainly: native elements carry their own
// keyboard and screen-reader behaviour (<dialog> traps focus and closes on Escape).
import { type FormEvent, Fragment, type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ApiFailure } from './api';

/** Copies `value`; says so in a live region, for screen readers too. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Without a secure context (plain http on another host) the Clipboard API is missing.
      const area = document.createElement('textarea');
      area.value = value;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    // Named by what it shows while it says "Copied" (WCAG's label in name), else by `label`.
    <button type="button" className="secondary small" onClick={copy} aria-label={copied ? undefined : label}>
      <span aria-live="polite">{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}

/** A modal confirmation; `onConfirm` runs only after the person says yes. */
export function ConfirmDialog(props: { open: boolean; title: string; children: ReactNode; confirm: string; onConfirm: () => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  // An id of its own: a page may hold several dialogs, each named by its own title.
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} onClose={props.onClose} aria-labelledby={titleId}>
      <h2 id={titleId} className="dialog-title">
        {props.title}
      </h2>
      <div>{props.children}</div>
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={props.onConfirm}>
          {props.confirm}
        </button>
      </div>
    </dialog>
  );
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof ApiFailure || error instanceof Error ? error.message : String(error);
  return (
    <p role="alert" className="error">
      {message}
    </p>
  );
}

/**
 * A record's page while its record could not be read: a heading of its own ("Email not found"),
 * so the page keeps one, and why. With the record shown (a refresh failed), only the error.
 */
export function RecordError({ what, query }: { what: string; query: { data?: unknown; error: unknown } }) {
  if (!query.error) return null;
  if (query.data !== undefined) return <ErrorMessage error={query.error} />;
  // A malformed id in the address (422 "… must be a valid UUID.") names no record either.
  const missing = query.error instanceof ApiFailure && (query.error.status === 404 || (query.error.status === 422 && /valid UUID/.test(query.error.message)));
  if (missing) {
    return (
      <>
        <h1>{what} not found</h1>
        <p>This account has none at this address: it may have been deleted, or the link is wrong.</p>
      </>
    );
  }
  return (
    <>
      <h1>{what} could not be read</h1>
      <ErrorMessage error={query.error} />
    </>
  );
}

export function formatTime(value: string | null): string {
  if (!value) return 'never';
  const date = new Date(value.replace(' ', 'T').replace(/\+00$/, 'Z'));
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** A duration in seconds as a person says it: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatAge(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** A search box: the search applies when submitted, and Clear empties it. */
export function SearchBox(props: { id: string; label: string; placeholder: string; search: string; onSearch: (search: string) => void }) {
  const [draft, setDraft] = useState(props.search);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSearch(draft.trim());
  };
  return (
    <search>
      <form className="row search" onSubmit={submit}>
        <label htmlFor={props.id} className="visually-hidden">
          {props.label}
        </label>
        <input id={props.id} type="search" placeholder={props.placeholder} value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit">Search</button>
        {props.search && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft('');
              props.onSearch('');
            }}
          >
            Clear
          </button>
        )}
      </form>
    </search>
  );
}

/** A secret shown once, just after it is made (an API key, a grant's token): copy it, then Done hides it for good. */
export function ShownOnceToken(props: { heading: 'h2' | 'h3'; title: ReactNode; token: string; testId: string; copyLabel: string; onDone: () => void }) {
  const titleId = useId();
  const Heading = props.heading;
  return (
    <section className="token" aria-labelledby={titleId}>
      <Heading id={titleId}>{props.title}</Heading>
      <p>Copy it now: it will not be shown again.</p>
      <div className="copy-row">
        <code data-testid={props.testId}>{props.token}</code>
        <CopyButton value={props.token} label={props.copyLabel} />
      </div>
      <button type="button" className="secondary small" onClick={props.onDone}>
        Done
      </button>
    </section>
  );
}

/** One tab of Tabs: its label, and what its panel shows while it is selected. */
interface Tab {
  id: string;
  label: string;
  panel: () => ReactNode;
}

/**
 * Tabs as the ARIA pattern has them: a tablist named `label`, the selected tab its one keyboard
 * stop, ←/→ (round), Home and End moving the focus and the selection; each panel named by its
 * tab. Only the selected panel is drawn; the others stay as empty hidden elements, which the
 * tabs' aria-controls name. A panel is no keyboard stop of its own: what scrolls in it is.
 */
export function Tabs({ label, tabs, selected, onSelect }: { label: string; tabs: readonly Tab[]; selected: string; onSelect: (id: string) => void }) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const keyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = tabs.length - 1;
    let to: number;
    if (event.key === 'ArrowRight') to = index === last ? 0 : index + 1;
    else if (event.key === 'ArrowLeft') to = index === 0 ? last : index - 1;
    else if (event.key === 'Home') to = 0;
    else if (event.key === 'End') to = last;
    else return;
    event.preventDefault();
    onSelect(tabs[to]!.id);
    list.current?.querySelectorAll<HTMLButtonElement>('[role="tab"]')[to]?.focus();
  };
  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} ref={list}>
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            type="button"
            role="tab"
            id={`${base}-tab-${tab.id}`}
            aria-selected={tab.id === selected}
            aria-controls={`${base}-panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
            onKeyDown={(event) => keyDown(event, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`${base}-panel-${tab.id}`}
          aria-labelledby={`${base}-tab-${tab.id}`}
          hidden={tab.id !== selected}
          className="tab-panel"
        >
          {tab.id === selected && tab.panel()}
        </div>
      ))}
    </div>
  );
}

/** An address with a place to break after its `@` (`<wbr>`: nothing is added to the text). */
function breakable(address: string): ReactNode[] {
  const nodes: ReactNode[] = [];
  let at = 0;
  for (const part of address.split(/(?<=@)/)) {
    if (at > 0) nodes.push(<wbr key={at} />);
    nodes.push(part);
    at += part.length;
  }
  return nodes;
}

/**
 * Addresses (or host names, IPs), comma-separated, each moved to the next line whole where it
 * does not fit (styles.css, `.address`), its comma with it; `Name <addr>` breaks between the two
 * first. One wider than a whole line breaks after its `@` or a hyphen, and mid-word only if one
 * of its parts is wider still.
 */
export function Addresses({ list }: { list: readonly string[] }) {
  return (
    <>
      {list.map((address, i) => {
        const named = /^(.*\S)\s+(<[^<>]*>)$/.exec(address);
        const comma = i < list.length - 1 ? ',' : '';
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: an address may repeat; the list never changes order
          <Fragment key={i}>
            {i > 0 && ' '}
            <span className="address">
              {named ? (
                <>
                  {named[1]} <span className="address">{breakable(named[2]!)}</span>
                </>
              ) : (
                breakable(address)
              )}
              {comma}
            </span>
          </Fragment>
        );
      })}
    </>
  );
}
