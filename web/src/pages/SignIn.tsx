import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Session, setCsrfToken, type RequestBody } from '../api';
import { ErrorMessage } from '../components';
import { navigate } from '../router';
import { nextPlace } from '../session';

export function SignInPage() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => api<Session>('POST', '/dashboard/api/sign-in', { email, password } satisfies RequestBody<'/dashboard/api/sign-in', 'post'>),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      // Nothing another session read may show in this one.
      queryClient.clear();
      queryClient.setQueryData(['session'], session);
      // Back where the ended session was (`?next=`, a page of the dashboard only), else the overview.
      navigate(nextPlace(), { replace: true });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="card-page">
      <form className="card" onSubmit={submit}>
        <h1>Sign in to Postline</h1>
        {nextPlace() !== '/' && <p className="hint">Once signed in, you return to the page you were on.</p>}
        <label htmlFor="email">Email address</label>
        <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorMessage error={signIn.error} />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="hint">
          No account yet? An operator creates one with <code>postline users create --account NAME EMAIL</code>.
        </p>
      </form>
    </main>
  );
}
