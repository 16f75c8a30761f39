/**
 * The console's entry: signs in through the controller's OIDC provider when there is no session, completes the
 * sign-in at /console/callback, and otherwise shows the screen the path names inside the layout.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, onSessionExpired } from './api/client';
import { currentTokens, finishSignIn, onSessionChange, resumeSession, signOut, startSignIn, type Tokens } from './api/session';
import { Layout } from './components/layout';
import { match, navigate, useLocation } from './router';
import { HOME, ROUTES } from './routes';
import { t } from './strings';
import '../styles/app.css';

const here = () => `${location.pathname}${location.search}`;

function SignIn({ message }: { message?: string }) {
  return (
    <main id="main" class="signin">
      <h1>{t.consoleName}</h1>
      <p>{message ?? t.session.welcome}</p>
      <button type="button" class="primary" onClick={() => void startSignIn(location.pathname === '/console/callback' ? HOME : here())}>
        {t.session.signIn}
      </button>
    </main>
  );
}

function Callback({ onError }: { onError: (message: string) => void }) {
  useEffect(() => {
    finishSignIn(new URL(location.href))
      .then((to) => navigate(to, { replace: true }))
      .catch((error: Error) => onError(t.session.callbackFailed(error.message === 'state' ? t.session.stateMismatch : error.message)));
  }, []);
  return (
    <main id="main" class="signin">
      <p role="status">{t.session.signingIn}</p>
    </main>
  );
}

function Screen({ path }: { path: string }) {
  for (const route of ROUTES) {
    const params = match(route.pattern, path);
    if (params) return <route.component params={params} />;
  }
  return <p>{t.common.notFound}</p>;
}

/** The signed-in identity's name, from the API (the access token names it by id only). */
function useSelfName(tokens: Tokens | undefined): string {
  const [name, setName] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!tokens) return;
    get<{ name: string }>('/current-identity')
      .then((answer) => setName(answer.data.name))
      .catch(() => undefined);
  }, [tokens?.accessToken === undefined]);
  return name ?? tokens?.name ?? '';
}

function App() {
  const { path } = useLocation();
  const [tokens, setTokens] = useState<Tokens | undefined>(currentTokens());
  const [expired, setExpired] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const selfName = useSelfName(tokens);
  useEffect(() => onSessionChange(setTokens), []);
  useEffect(() => onSessionExpired(() => setExpired(true)), []);
  useEffect(() => resumeSession(), []);
  useEffect(() => {
    if (tokens && (path === '/console/' || path === '/console')) navigate(HOME, { replace: true });
  }, [tokens, path]);

  if (path === '/console/callback') return <Callback onError={setMessage} />;
  if (!tokens || expired) {
    // An ended session keeps the page's address (and the drafts in sessionStorage): signing in comes back here.
    return <SignIn message={message ?? (expired ? t.session.expired : undefined)} />;
  }
  return (
    <Layout path={path} user={selfName} onSignOut={() => void signOut().then(() => setMessage(t.session.signedOut))}>
      <Screen path={path} />
    </Layout>
  );
}

render(<App />, document.getElementById('app')!);
