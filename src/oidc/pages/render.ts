/**
 * The browser login pages (issue 45): server-rendered, working without JavaScript, under the console's strict
 * Content-Security-Policy (no inline script or style; the form may post here and, after sign-in, go on to the
 * client's redirect URI). The sign-in page, the TOTP page and TOTP enrollment (QR code, secret, recovery codes with a
 * download, and a confirmation before they count). Every value is escaped; every string comes from strings.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CONTENT_SECURITY_POLICY, PAGE_SECURITY_HEADERS } from '../../http/console/content-security-policy.js';
import { stringsFor, type PageStrings } from './strings.js';
import { LOGIN_CSS_PATH } from './style.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const wantsHtml = (request: FastifyRequest) => String(request.headers.accept ?? '').includes('text/html');

export const pageStrings = (request: FastifyRequest) => stringsFor(request.headers['accept-language'] as string | undefined);

/** A refusal shown on a page: the sentence, linked to the field it is about by id. */
export interface PageProblem {
  message: string;
  field?: string;
}

function page(s: PageStrings, title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="${s.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}
<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)} · ${s.product}</title>
<link rel="stylesheet" href="${LOGIN_CSS_PATH}"><link rel="icon" href="data:,"></head>
<body><main>
<p class="brand">${s.product}</p>
${body}
</main><footer>${escapeHtml(s.footer)}</footer></body></html>`;
}

const problemHtml = (problem: PageProblem | undefined) => (problem ? `<p class="problem" role="alert" id="problem">${escapeHtml(problem.message)}</p>` : '');
const describedBy = (problem: PageProblem | undefined, field: string, hint?: string) => {
  const ids = [hint, problem && (problem.field === field || problem.field === undefined) ? 'problem' : undefined].filter(Boolean);
  return ids.length > 0 ? ` aria-describedby="${ids.join(' ')}"` : '';
};
const invalid = (problem: PageProblem | undefined, field: string) => (problem?.field === field ? ' aria-invalid="true"' : '');

/** The page's headers: the pages' CSP, with the client's redirect origin allowed as a form target after sign-in. */
export function sendPage(reply: FastifyReply, status: number, html: string, redirectUri?: string): FastifyReply {
  let policy = CONTENT_SECURITY_POLICY;
  try {
    if (redirectUri) policy = policy.replace("form-action 'self'", `form-action 'self' ${new URL(redirectUri).origin}`);
  } catch {
    // a redirect URI the provider accepted always parses; if not, only 'self' stays allowed
  }
  return reply
    .code(status)
    .headers({ ...PAGE_SECURITY_HEADERS, 'content-security-policy': policy, 'cache-control': 'no-store' })
    .type('text/html; charset=utf-8')
    .send(html);
}

export interface LoginOptions {
  /** Offer the certificate button: the browser presented a client certificate. */
  certificate: boolean;
  /** External identity providers to offer: name and where their sign-in starts. */
  providers: { name: string; url: string }[];
}

export function loginPage(s: PageStrings, authRequestId: string, options: LoginOptions, problem?: PageProblem): string {
  const id = escapeHtml(authRequestId);
  const certificate = options.certificate
    ? `<p class="or">${s.or}</p><form method="post" action="/oidc/login/cert"><input type="hidden" name="authRequestId" value="${id}">
<button type="submit" aria-describedby="cert-hint">${escapeHtml(s.certificate)}</button><span class="hint" id="cert-hint">${escapeHtml(s.certificateHint)}</span></form>`
    : '';
  const providers = options.providers
    .map((provider) => `<p><a class="button" href="${escapeHtml(provider.url)}">${escapeHtml(s.externalProvider(provider.name))}</a></p>`)
    .join('\n');
  return page(
    s,
    s.signInTitle,
    `<h1>${s.signInTitle}</h1>
<p>${escapeHtml(s.signInLead)}</p>
${problemHtml(problem)}
<form method="post" action="/oidc/login/password">
<input type="hidden" name="authRequestId" value="${id}">
<div><label for="username">${s.username}</label><input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required minlength="1" maxlength="100" autofocus${describedBy(problem, 'username')}${invalid(problem, 'username')}></div>
<div><label for="password">${s.password}</label><input type="password" id="password" name="password" autocomplete="current-password" required minlength="1" maxlength="100"${invalid(problem, 'password')}></div>
<button type="submit" class="primary">${s.signIn}</button>
</form>
${certificate}
${providers ? `<p class="or">${s.or}</p>${providers}` : ''}`,
  );
}

/** A refusal with no sign-in to go back to (e.g. a callback this browser did not start): the sentence alone. */
export function problemPage(s: PageStrings, problem: PageProblem): string {
  return page(s, s.signInTitle, `<h1>${s.signInTitle}</h1>\n${problemHtml(problem)}`);
}

/**
 * On to `location` (a path on this controller) at once, without a script: a refresh, and a link for a browser that
 * does not follow it. A navigation of its own, so the CSP `form-action` of the page that posted before (an IdP's
 * login form) does not stretch to the client's redirect URI at the end of the chain.
 */
export function continuePage(s: PageStrings, location: string): string {
  const to = escapeHtml(location);
  return page(s, s.continueTitle, `<h1>${s.continueTitle}</h1>\n<p><a class="button" href="${to}">${escapeHtml(s.continueLink)}</a></p>`, `<meta http-equiv="refresh" content="0;url=${to}">`);
}

/** The second step: the code from the authenticator app, or a recovery code (letters allowed). */
export function totpPage(s: PageStrings, authRequestId: string, problem?: PageProblem): string {
  const id = escapeHtml(authRequestId);
  return page(
    s,
    s.totpTitle,
    `<h1>${s.totpTitle}</h1>
<p>${escapeHtml(s.totpLead)}</p>
${problemHtml(problem)}
<form method="post" action="/oidc/login/totp">
<input type="hidden" name="id" value="${id}">
<div><label for="code">${escapeHtml(s.code)}</label><input type="text" id="code" name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required minlength="6" maxlength="32" autofocus${describedBy(problem, 'code', 'code-hint')}${invalid(problem, 'code')}>
<span class="hint" id="code-hint">${escapeHtml(s.codeHint)}</span></div>
<button type="submit" class="primary">${s.continue}</button>
</form>
<form method="post" action="/oidc/login/totp/enroll"><input type="hidden" name="authRequestId" value="${id}">
<p class="hint">${escapeHtml(s.noApp)}</p><button type="submit">${escapeHtml(s.setUp)}</button></form>`,
  );
}

export interface TotpEnrollment {
  provisioningUrl: string;
  recoveryCodes: readonly string[];
}

/** TOTP enrollment: QR code and secret, recovery codes with a download, then the confirmation and the first code. */
export async function enrollPage(s: PageStrings, authRequestId: string, enrollment: TotpEnrollment, problem?: PageProblem): Promise<string> {
  const id = escapeHtml(authRequestId);
  // Loaded when a QR code is drawn (57 modules with its PNG encoder), not by every process that loads the controller.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(enrollment.provisioningUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
  const qr = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  const secret = new URL(enrollment.provisioningUrl).searchParams.get('secret') ?? '';
  const codes = enrollment.recoveryCodes;
  const file = `data:text/plain;charset=utf-8,${encodeURIComponent(`svc recovery codes\n\n${codes.join('\n')}\n`)}`;
  return page(
    s,
    s.enrollTitle,
    `<h1>${s.enrollTitle}</h1>
${problemHtml(problem)}
<p>${escapeHtml(s.enrollStep1)}</p>
<img class="qr" src="${qr}" alt="${escapeHtml(s.qrAlt)}" width="220" height="220">
<p><span class="hint">${escapeHtml(s.secret)}:</span><br><code class="secret" id="secret">${escapeHtml(secret)}</code></p>
<p>${escapeHtml(s.enrollStep2)}</p>
<ul class="codes" aria-label="${escapeHtml(s.recoveryCodes)}">${codes.map((code) => `<li>${escapeHtml(code)}</li>`).join('')}</ul>
<p><a class="button" href="${escapeHtml(file)}" download="svc-recovery-codes.txt">${escapeHtml(s.download)}</a></p>
<form method="post" action="/oidc/login/totp/enroll/verify">
<input type="hidden" name="authRequestId" value="${id}">
<div class="check"><input type="checkbox" id="saved" name="saved" value="yes" required${describedBy(problem, 'saved')}${invalid(problem, 'saved')}><label for="saved">${escapeHtml(s.saved)}</label></div>
<p>${escapeHtml(s.enrollStep3)}</p>
<div><label for="code">${escapeHtml(s.code)}</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required minlength="6" maxlength="6"${describedBy(problem, 'code')}${invalid(problem, 'code')}></div>
<button type="submit" class="primary">${escapeHtml(s.confirm)}</button>
</form>`,
  );
}
