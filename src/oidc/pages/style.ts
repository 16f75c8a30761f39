/**
 * The login pages' stylesheet, served from the controller at /oidc/assets/login-HASH.css (the CSP allows only this
 * origin's stylesheets and no inline style): a centred card on a desktop, one column on a phone, light and dark,
 * AA contrast and a visible focus ring.
 */
import { createHash } from 'node:crypto';

export const LOGIN_CSS = `:root{color-scheme:light dark;--bg:#f4f6f8;--card:#ffffff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0b5cad;--accent-fg:#ffffff;--danger:#b42318;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--accent:#4493f8;--accent-fg:#0d1117;--danger:#ff7b72}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:1rem}
main{width:100%;max-width:26rem;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:2rem}
.brand{font-weight:800;font-size:1.4rem;letter-spacing:.02em;margin:0 0 1rem}h1{font-size:1.3rem;margin:0 0 .5rem}p{margin:.5rem 0}
form{display:grid;gap:.9rem;margin:1rem 0}label{font-weight:600;display:block;margin-bottom:.25rem}
input[type=text],input[type=password]{width:100%;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:.6rem .7rem}
button,.button{font:inherit;border-radius:8px;padding:.6rem 1rem;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer;text-decoration:none;display:inline-block;text-align:center}
button.primary{background:var(--accent);color:var(--accent-fg);border-color:var(--accent);width:100%}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.problem{color:var(--danger);font-weight:600;border-left:4px solid var(--danger);padding-left:.6rem}
.hint{color:var(--muted);font-size:.9rem}.or{color:var(--muted);text-align:center;margin:.5rem 0}
.check{display:flex;gap:.5rem;align-items:flex-start}.check label{font-weight:400;margin:0}
.qr{display:block;margin:.5rem auto;background:#fff;padding:.5rem;border-radius:8px;max-width:220px;height:auto}
code,.codes{font-family:ui-monospace,Menlo,monospace}.secret{word-break:break-all;font-size:1.05rem}
.codes{display:grid;grid-template-columns:repeat(2,1fr);gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}
footer{color:var(--muted);font-size:.85rem;margin-top:1rem}
@media (max-width:30rem){body{padding:0;justify-content:flex-start}main{border-radius:0;border:none;min-height:100vh}}`;

const version = createHash('sha256').update(LOGIN_CSS).digest('hex').slice(0, 12);

/** The stylesheet's path: versioned by its content, so it can be cached for a year. */
export const LOGIN_CSS_PATH = `/oidc/assets/login-${version}.css`;
