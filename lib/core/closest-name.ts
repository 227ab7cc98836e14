/**
 * The edit distance of `a` and `b`: the fewest insertions, deletions, substitutions and swaps of
 * two neighbouring characters that turn one into the other (`strpe` → `stripe`: 1,
 * `Echo.fial` → `Echo.fail`: 1).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(rows[i - 1][j] + 1, row[j - 1] + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2][j - 2] + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length][b.length];
}

/**
 * The name among `known` that `name` is most likely a typo of: the nearest by
 * {@link editDistance} (case aside), when it is within a third of the longer name's length
 * (at least 1, at most 3); undefined when none is that near, or two are equally near.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let closest: string | undefined;
  let best = Infinity;
  let tied = false;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3)));
    if (distance > limit || distance > best) {
      continue;
    }
    tied = distance === best;
    best = distance;
    closest = candidate;
  }
  return tied ? undefined : closest;
}
