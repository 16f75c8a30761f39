// Ratios of login rates to the raw argon2id rate for `npm run bench`, paired by round. The host's speed drifts over
// minutes (other guests on the same cores: the raw rate alone moved 164 -> 189/s within 40 minutes, decision 0047), so
// a rate is only compared with raw runs made around it: every round of logins sits between two raw argon2id runs, and
// its ratio is its rate over the mean of those two. The figure is the median of the rounds' ratios; the rounds' own
// ratios are printed with it, so a reader sees the spread instead of one number.
import { median } from './lib.mjs';

/** Each round's ratio: `rates[i]` over the mean of the raw rates measured before (`raw[i]`) and after (`raw[i + 1]`). */
export function roundRatios(rates, raw) {
  if (raw.length !== rates.length + 1) throw new Error(`${rates.length} rounds need ${rates.length + 1} raw runs around them, got ${raw.length}`);
  return rates.map((rate, i) => rate / ((raw[i] + raw[i + 1]) / 2));
}

/** The row text: the median ratio of the rounds, each round's ratio, and the median rates. */
export function describeRatio(rates, raw) {
  const ratios = roundRatios(rates, raw);
  return `${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}; medians ${median(rates).toFixed(1)} / ${median(raw).toFixed(1)})`;
}

/**
 * svc against one of its baselines (decision 0050): each round's svc rate over the baseline's rate of the same round.
 * Both ran within the same minute, between the same raw runs, so the host's drift over the run cancels out: what is
 * left is svc's own work beside what the baseline does.
 */
export function roundsAgainst(rates, baselineRates) {
  if (rates.length !== baselineRates.length) throw new Error(`${rates.length} rounds of svc need as many of the baseline, got ${baselineRates.length}`);
  return rates.map((rate, i) => rate / baselineRates[i]);
}

/** The row text of `roundsAgainst`: the median round, then each round. */
export function describeAgainst(rates, baselineRates) {
  const ratios = roundsAgainst(rates, baselineRates);
  return `${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})`;
}
