/** The frame of every signed-in screen: the product name, the navigation, who is signed in, and sign-out. */
import type { ComponentChildren } from 'preact';
import { t } from '../strings';
import { NAVIGATION } from '../routes';
import { Link } from './link';

export function Layout({ path, user, onSignOut, children }: { path: string; user: string; onSignOut: () => void; children: ComponentChildren }) {
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <header class="top">
        <Link href="/console/" class="brand">
          {t.consoleName}
        </Link>
        <span class="user">{t.session.signedInAs(user)}</span>
        <button type="button" class="sign-out" onClick={onSignOut}>
          {t.session.signOut}
        </button>
      </header>
      <nav class="side" aria-label={t.nav.label}>
        <ul>
          {NAVIGATION.map((item) => (
            <li key={item.href}>
              <Link href={item.href} current={path === item.href || path.startsWith(`${item.href}/`)}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
