// Complete PKCE logins per second for `npm run bench`, loaded by wrk (C, OpenSSL) rather than a Node client, so the
// load generator takes as little of the machine's CPU from the controller and its argon2id threads as it does for
// the other figures. Each wrk thread keeps one connection and walks one flow at a time: authorization request ->
// password login -> the provider's callback -> code exchange; a flow is counted when the token endpoint answers 200.
// The code verifiers are made here (Lua has no SHA-256), one per thread; each flow still gets a code of its own.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The wrk script of `flows` concurrent flows logging in as `username`. */
function script(flows, username, password) {
  const pairs = Array.from({ length: flows }, () => {
    const verifier = randomBytes(32).toString('base64url');
    return `{ ${JSON.stringify(verifier)}, ${JSON.stringify(createHash('sha256').update(verifier).digest('base64url'))} }`;
  });
  // The login body after its first member, as a Lua long string (no escaping needed): "username":…,"password":…}
  const credentials = JSON.stringify({ username, password }).slice(1);
  return `
local credentials = [==[${credentials}]==]
local verifiers = { ${pairs.join(', ')} }
local redirect = "http://127.0.0.1:9/auth/callback"
local threads, made = {}, 0
function setup(thread)
  made = made + 1
  thread:set("index", made)
  table.insert(threads, thread)
end
local function escape(s) return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end)) end
function init(args)
  verifier, challenge = verifiers[index][1], verifiers[index][2]
  step, logins, failures = 1, 0, 0
  authorizePath = "/oidc/authorization?response_type=code&client_id=svc&redirect_uri=" .. escape(redirect)
    .. "&scope=openid%20offline_access&state=s&nonce=n&code_challenge=" .. challenge .. "&code_challenge_method=S256"
end
function request()
  if step == 1 then return wrk.format("GET", authorizePath) end
  if step == 2 then
    return wrk.format("POST", "/oidc/login/password", { ["Content-Type"] = "application/json" }, '{"authRequestId":"' .. authRequestId .. '",' .. credentials)
  end
  if step == 3 then return wrk.format("GET", callbackPath) end
  return wrk.format("POST", "/oidc/token", { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "grant_type=authorization_code&code=" .. escape(code) .. "&redirect_uri=" .. escape(redirect) .. "&client_id=svc&code_verifier=" .. verifier)
end
local function restart() failures = failures + 1; step = 1 end
local function codeOf(location) code = location and location:match("[?&]code=([^&]+)"); return code ~= nil end
function response(status, headers, body)
  local location = headers["location"] or headers["Location"]
  if step == 1 then
    authRequestId = location and location:match("authRequestID=([^&]+)")
    if authRequestId then step = 2 else restart() end
  elseif step == 2 then
    if not location then return restart() end
    if location:sub(1, #redirect) == redirect then
      if codeOf(location) then step = 4 else restart() end
    else
      callbackPath = location:gsub("^https?://[^/]+", "")
      step = 3
    end
  elseif step == 3 then
    if codeOf(location) then step = 4 else restart() end
  else
    if status == 200 then logins = logins + 1 else failures = failures + 1 end
    step = 1
  end
end
function done(summary, latency, requests)
  local total, failed = 0, 0
  for _, thread in ipairs(threads) do total = total + thread:get("logins"); failed = failed + thread:get("failures") end
  io.write(string.format("pkce-logins %d failures %d seconds %.3f\\n", total, failed, summary.duration / 1e6))
end
`;
}

/** Resolves {logins (per second), units (logins completed), failures}; `wrk` is the path of the wrk binary. */
export function pkceLoginsWithWrk(wrk, origin, { flows, seconds, username, password, scratch }) {
  const file = join(scratch, `pkce-${randomBytes(4).toString('hex')}.lua`);
  writeFileSync(file, script(flows, username, password));
  return new Promise((resolve, reject) => {
    const child = spawn(wrk, [`-t${flows}`, `-c${flows}`, `-d${seconds}s`, '-s', file, origin], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      const m = /pkce-logins (\d+) failures (\d+) seconds ([\d.]+)/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`wrk PKCE run failed: ${out}`));
      resolve({ logins: Number(m[1]) / Number(m[3]), units: Number(m[1]), failures: Number(m[2]) });
    });
  });
}
