/**
 * A bundle-time macro (text.ts imports it `with { type: "macro" }`): vocabulary.json turned into
 * the lookup tables routing uses, inlined into the binary as literals. A prompt hook then reads
 * the few hash buckets its words fall into instead of building thousands of map entries on
 * every cold start.
 * Under `bun test` and `bun src/cli.ts` the transpiler runs it the same way.
 */
import data from "./vocabulary.json";

/** Buckets per lookup table (text.ts finds a trigger's bucket the same way). */
const VOCABULARY_BUCKETS = 1024;

export function vocabularyTables() {
  const expand = data.expand as string[][][];
  const single = new Map<string, number[]>();
  const phrases = new Map<string, number[]>();
  let longest = 1;
  expand.forEach(([triggers = []], g) => {
    for (const key of triggers) {
      const words = key.split(" ").length;
      if (words > longest) longest = words;
      const map = words === 1 ? single : phrases;
      map.set(key, [...(map.get(key) ?? []), g]);
    }
  });
  // Lookup tables as text: "<trigger>\t<group>,<group>" lines in VOCABULARY_BUCKETS buckets by
  // the trigger's hash (a handful of lines each, so a lookup reads a few dozen bytes; each bucket
  // starts and ends with a line break, so a lookup finds "\n<trigger>\t" without splitting it),
  // and one line of tab-separated expansions per group (a trigger in two groups lists both, the
  // earlier first). Building maps of every trigger, or parsing them from JSON, costs milliseconds
  // on every cold start; and each table is one string with its parts' offsets, because every
  // string of a literal costs the first call of the function that holds it (3,000 strings: 0.3 ms).
  const parts = (texts: string[]) => {
    const offsets = [0];
    for (const t of texts) offsets.push(offsets[offsets.length - 1]! + t.length);
    return { text: texts.join(""), offsets };
  };
  const table = (map: Map<string, number[]>) => {
    const buckets: string[][] = Array.from({ length: VOCABULARY_BUCKETS }, () => []);
    for (const [k, gs] of map) buckets[Bun.hash.crc32(k) % VOCABULARY_BUCKETS]!.push(`${k}\t${gs.join(",")}`);
    return parts(buckets.map((lines) => (lines.length ? `\n${lines.join("\n")}\n` : "")));
  };
  /** A word list as one string, each word between line breaks. */
  const list = (words: string[]) => `\n${words.join("\n")}\n`;
  // The runs of two or more words a longer phrase starts with ("how do" of "how do we deploy"),
  // with no groups: a run of prompt words that is neither a phrase nor one of these is not
  // looked up with more words after it.
  const starts = new Map<string, number[]>();
  for (const key of phrases.keys()) {
    const words = key.split(" ");
    for (let n = 2; n < words.length; n++) starts.set(words.slice(0, n).join(" "), []);
  }
  return {
    generic: list(data.generic),
    short: list(data.short),
    common: list(data.common),
    general: data.general,
    project: data.project,
    question: list(data.question),
    instruction: list(data.instruction),
    groups: parts(expand.map(([, adds = []]) => adds.join("\t"))),
    single: table(single),
    phrases: table(phrases),
    starts: table(starts),
    longest,
  };
}
