/** "Did you mean ...?": the closest name to a typo, for usage errors everywhere. */

/** Edit distance (Damerau: a swap of two neighbours counts 1, `--tga` -> `--tags`). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate, when it is close enough to be what the user meant. */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = c.startsWith(lower) && lower.length >= 2 ? 0.5 : editDistance(lower, c.toLowerCase());
    if (!best || d < best.d) best = { c, d };
  }
  if (!best) return undefined;
  const limit = Math.max(1, Math.min(3, Math.ceil(best.c.length / 2)));
  return best.d <= limit ? best.c : undefined;
}
