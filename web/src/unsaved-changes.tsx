// Unsaved changes kept from being lost, for any editor page (automations, templates,
// broadcasts): while the page has changes, leaving in the app (links, navigate(), Back and
// Forward) asks through a dialog first (router.ts guardLeaving), and the browser asks before the
// tab is closed or reloaded (beforeunload).
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { ConfirmDialog } from './components';
import { guardLeaving } from './router';

/**
 * `dirty`: the page has changes not saved; `what` names them in the dialog ("this template").
 * Render `dialog`; call `release()` just before leaving on purpose (after a save, a delete), so
 * that leaving does not ask.
 */
export function useUnsavedChanges(dirty: boolean, what: string): { dialog: ReactNode; release: () => void } {
  const [leaving, setLeaving] = useState<() => void>();
  const released = useRef(false);
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty && !released.current;
  useEffect(
    () =>
      guardLeaving((leave) => {
        if (!dirtyRef.current) return true;
        setLeaving(() => leave);
        return false;
      }),
    [],
  );
  useEffect(() => {
    if (!dirty) return;
    const ask = (event: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);
  const release = () => {
    released.current = true;
    dirtyRef.current = false;
  };
  const dialog = (
    <ConfirmDialog
      open={leaving !== undefined}
      title="Leave without saving?"
      confirm="Leave"
      onConfirm={() => {
        const leave = leaving;
        dirtyRef.current = false;
        setLeaving(undefined);
        leave?.();
      }}
      onClose={() => setLeaving(undefined)}
    >
      <p>The changes to {what} are not saved: they are lost if you leave.</p>
    </ConfirmDialog>
  );
  return { dialog, release };
}
