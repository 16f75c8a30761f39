/**
 * "Did you mean" suggestions for misspelt keys and names: the closest candidate by edit distance.
 */

/** Levenshtein distance between two strings (case-sensitive). */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] as number;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] as number;
}

/**
 * The candidate closest to `word` when it is close enough to be a plausible typo, else undefined. A candidate whose
 * length differs from the word's by more than the tolerance cannot be within it and is not measured, so a long word
 * (a 16 KiB `sort` parameter) costs nothing against short field names.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const tolerance = Math.max(2, Math.floor(word.length / 3));
  const lowerWord = word.toLowerCase();
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    // The distance is at least the difference in length.
    if (Math.abs(lower.length - lowerWord.length) > tolerance) continue;
    const distance = editDistance(lowerWord, lower);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= tolerance ? best : undefined;
}
