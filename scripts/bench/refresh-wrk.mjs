// OIDC refresh grants per second for `npm run bench`, loaded by wrk (one thread, as the bare route is) so the figure
// compares with the bare route's req/s of the same run (issue 17: refresh grants at 0.1 of it or more). The Node
// client (oidc-flows.mjs) saturates itself before the controller does, so its rate says little about svc.
//
// Each refresh token is presented once: the thread keeps a queue of live tokens, seeded with one per connection; a
// request takes one from the queue and its answer puts the rotated successor back. A connection has one request in
// flight, so the queue never runs dry. An answer without a successor is counted as a failure and its token is lost;
// should the queue run dry anyway, the request is a plain GET of the version document, and counted as one too.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The wrk script rotating `tokens` (one per connection) at the token endpoint. */
function script(tokens) {
  return `
local queue = { ${tokens.map((t) => JSON.stringify(t)).join(', ')} }
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  -- wrk calls the first thread's request() once before the run to see what it makes, and sends nothing of it.
  thread:set("probed", #threads == 1)
end
local function escape(s) return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end)) end
function init(args) grants, failures, dry = 0, 0, 0 end
local function grant(token)
  return wrk.format("POST", "/oidc/token", { ["Content-Type"] = "application/x-www-form-urlencoded" },
    "grant_type=refresh_token&client_id=svc&refresh_token=" .. escape(token))
end
function request()
  if probed then probed = false; return grant(queue[#queue]) end
  local token = table.remove(queue)
  if not token then dry = dry + 1; return wrk.format("GET", "/edge/client/v1/version") end
  return grant(token)
end
function response(status, headers, body)
  local successor = status == 200 and body:match('"refresh_token":"([^"]+)"')
  if successor then grants = grants + 1; table.insert(queue, successor) else failures = failures + 1 end
end
function done(summary, latency, requests)
  local total, failed, empty = 0, 0, 0
  for _, thread in ipairs(threads) do total = total + thread:get("grants"); failed = failed + thread:get("failures"); empty = empty + thread:get("dry") end
  io.write(string.format("refresh-grants %d failures %d dry %d seconds %.3f\\n", total, failed, empty, summary.duration / 1e6))
end
`;
}

/**
 * Resolves {grants (per second), units (grants made), failures (answers without a rotated token)};
 * `tokens` are live refresh tokens, one per connection; `wrk` is the path of the wrk binary.
 */
export function refreshGrantsWithWrk(wrk, origin, { tokens, seconds, scratch }) {
  const file = join(scratch, `refresh-${randomBytes(4).toString('hex')}.lua`);
  writeFileSync(file, script(tokens));
  return new Promise((resolve, reject) => {
    const child = spawn(wrk, ['-t1', `-c${tokens.length}`, `-d${seconds}s`, '-s', file, origin], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      const m = /refresh-grants (\d+) failures (\d+) dry (\d+) seconds ([\d.]+)/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`wrk refresh run failed: ${out}`));
      resolve({ grants: Number(m[1]) / Number(m[4]), units: Number(m[1]), failures: Number(m[2]) });
    });
  });
}
