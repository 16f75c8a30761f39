/**
 * Content negotiation for the few operations that can answer in more than one media type (enroll answers JSON or
 * a bare PEM chain): which offered type the request's Accept header prefers (RFC 9110 section 12.5.1).
 */
export const JSON_TYPE = 'application/json';
export const PEM_TYPE = 'application/x-pem-file';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    // Empty list items (RFC 9110 §5.6.1 lets senders write them) are skipped before any splitting: a header of commas
    // alone otherwise cost ten times an ordinary one of the same length.
    if (part.trim() === '') continue;
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const [type, subtype] = range.split('/');
    if (!type || !subtype) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    ranges.push({ type, subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 });
  }
  return ranges;
}

/** The quality the ranges give `mediaType`: the most specific matching range decides (exact, then type/*, then the full wildcard). */
function qualityOf(mediaType: string, ranges: MediaRange[]): number {
  const [type, subtype] = mediaType.split('/');
  const specificity = (r: MediaRange) => (r.type === type && r.subtype === subtype ? 3 : r.type === type && r.subtype === '*' ? 2 : r.type === '*' && r.subtype === '*' ? 1 : 0);
  let best: { specificity: number; q: number } = { specificity: 0, q: 0 };
  for (const range of ranges) {
    const s = specificity(range);
    if (s > best.specificity) best = { specificity: s, q: range.q };
  }
  return best.q;
}

/**
 * The offered media type the client prefers, or undefined when it accepts none of them (answer 406). No Accept
 * header means anything is acceptable; on equal quality the earlier offer wins, so list the default first.
 *
 * @example preferredMediaType('application/x-pem-file, application/json;q=0.5', [JSON_TYPE, PEM_TYPE]) // PEM_TYPE
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = parseAccept(accept);
  let chosen: { type: string; q: number } | undefined;
  for (const type of offered) {
    const q = qualityOf(type, ranges);
    if (q > 0 && (chosen === undefined || q > chosen.q)) chosen = { type, q };
  }
  return chosen?.type;
}
