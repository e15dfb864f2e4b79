/**
 * Did-you-mean, one rule for every name a user types (commands, help topics, config keys,
 * --format values, duration units, token operations): the candidates nearest by edit distance,
 * where swapping two neighbouring letters is one edit (`lsit` is one edit from `list`, two from
 * `lite`), within a distance that grows with the word's length; ties keep the candidates' order.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** How far a typo of `word` may be: 1 edit for short words, about a third of the word for long ones. */
export function tolerance(word: string): number {
  return Math.max(1, Math.floor(word.length / 3));
}

/** The candidates within tolerance of `word`, nearest first (ties in the candidates' order). */
export function nearest(word: string, candidates: readonly string[], max = tolerance(word)): string[] {
  const w = word.toLowerCase();
  return candidates
    .map((c, i) => ({ c, i, d: editDistance(w, c.toLowerCase()) }))
    .filter((x) => x.d <= max)
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .map((x) => x.c);
}

/** `; did you mean X?` for the nearest candidate, or "" when none is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const best = nearest(word, candidates)[0];
  return best === undefined ? "" : `; did you mean ${best}?`;
}
