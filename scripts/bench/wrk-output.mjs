// What a wrk run measured, read from its text report. wrk's own "Requests/sec" counts every answer, refusals and
// errors included (its "Non-2xx or 3xx responses" are inside it): a server answering 401 quickly would look fast. The
// rate here counts only the 2xx answers, over the run's own duration, as the node load generator (load.mjs) does.

/** A wrk duration such as `10.00s`, `1.00m` or `850.00ms`, in seconds. */
function seconds(value, unit) {
  const scale = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 }[unit];
  return Number(value) * scale;
}

/**
 * {rps (2xx answers per second), errors (answers that were not 2xx), requests (2xx answers)} from wrk's report, or
 * undefined when it holds no "N requests in T" line.
 */
export function wrkResult(out) {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h)\b/.exec(out);
  if (!total) return undefined;
  const answered = Number(total[1]);
  const duration = seconds(total[2], total[3]);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const ok = answered - errors;
  return { rps: duration > 0 ? ok / duration : 0, errors, requests: ok };
}
