import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Session, setCsrfToken } from '../api';
import { ErrorMessage } from '../components';
import { navigate } from '../router';

/** The link's fragment: `#token=…`, and `&setup=1` on the first-run link (which creates the first user). */
function linkParams(): { token: string; setup: boolean } {
  const params = new URLSearchParams(window.location.hash.slice(1));
  return { token: params.get('token') ?? '', setup: params.get('setup') === '1' };
}

export function SetPasswordPage() {
  const queryClient = useQueryClient();
  const [{ token, setup }] = useState(linkParams);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const save = useMutation({
    mutationFn: () => api<Session>('POST', '/dashboard/api/set-password', { token, password, ...(setup ? { email } : {}) }),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      queryClient.setQueryData(['session'], session);
      navigate('/', { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeat);
    if (password === repeat) save.mutate();
  };
  if (!token) {
    return (
      <main className="card-page">
        <div className="card">
          <h1>Set your password</h1>
          <p role="alert">This link has no token. Open the whole link you were given, or ask for a new one.</p>
        </div>
      </main>
    );
  }
  return (
    <main className="card-page">
      <form className="card" onSubmit={submit}>
        <h1>{setup ? 'Create the first user' : 'Set your password'}</h1>
        {setup && (
          <>
            <label htmlFor="email">Email address</label>
            <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </>
        )}
        <label htmlFor="password">New password</label>
        <input
          id="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          aria-describedby="password-hint"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <p id="password-hint" className="hint">
          At least 10 characters.
        </p>
        <label htmlFor="repeat">Repeat the password</label>
        <input id="repeat" type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />
        {mismatch && (
          <p role="alert" className="error">
            The two passwords differ.
          </p>
        )}
        <ErrorMessage error={save.error} />
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </main>
  );
}
