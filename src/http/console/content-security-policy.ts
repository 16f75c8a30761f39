/**
 * The Content-Security-Policy of the console and of the browser login pages: only this origin's own scripts,
 * stylesheets, images and API calls; no inline script or style, no frames, no third-party origin. Forms post only
 * here. One constant, so the console and the login pages cannot drift apart.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers every console or login page answer carries. */
export const PAGE_SECURITY_HEADERS = Object.freeze({
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});
