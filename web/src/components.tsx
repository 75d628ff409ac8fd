// The few controls every page shares, written plainly: native elements carry their own
// keyboard and screen-reader behaviour (<dialog> traps focus and closes on Escape).
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
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
    <button type="button" className="secondary small" onClick={copy} aria-label={label}>
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
