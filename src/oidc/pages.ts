/**
 * The plain HTML pages of a browser login (Accept: text/html): the username/password form and the TOTP form. No
 * scripts, no styles, every value escaped; API clients get JSON from the same endpoints instead.
 */
import type { FastifyRequest } from 'fastify';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const wantsHtml = (request: FastifyRequest) => String(request.headers.accept ?? '').includes('text/html');

function page(title: string, problem: string | undefined, form: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
${form}
</body></html>`;
}

export function loginForm(authRequestId: string, problem?: string): string {
  return page(
    'Log in',
    problem,
    `<form method="post" action="/oidc/login/password">
<input type="hidden" name="authRequestId" value="${escapeHtml(authRequestId)}">
<label>Username <input name="username" autocomplete="username" required minlength="4" maxlength="100"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required minlength="5" maxlength="100"></label>
<button type="submit">Log in</button>
</form>`,
  );
}

/** The second step: the 6-digit code of the authenticator app, or a recovery code. */
export function totpForm(authRequestId: string, problem?: string): string {
  return page(
    'Enter your authentication code',
    problem,
    `<form method="post" action="/oidc/login/totp">
<input type="hidden" name="id" value="${escapeHtml(authRequestId)}">
<label>Code from your authenticator app, or a recovery code <input name="code" autocomplete="one-time-code" inputmode="numeric" required minlength="6" maxlength="6" autofocus></label>
<button type="submit">Continue</button>
</form>`,
  );
}
