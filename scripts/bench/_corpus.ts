/** Synthetic words for the benchmarks' generated stores: deterministic, pronounceable, distinct. */
const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ter",
  "vex",
  "dan",
  "pol",
  "ru",
  "sin",
  "gor",
  "bel",
  "tav",
  "qui",
  "neo",
  "zap",
  "hul",
];

export function syntheticVocab(size: number): string[] {
  return Array.from({ length: size }, (_, i) => {
    let w = "";
    let n = i + 1;
    while (n > 0) {
      w += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    }
    return w;
  });
}
