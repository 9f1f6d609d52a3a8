/**
 * A bundle-time macro (text.ts imports it `with { type: "macro" }`): vocabulary.json turned into
 * the lookup tables routing uses, as one JSON string inlined into the binary. A prompt hook then
 * parses a few small lists and searches two strings instead of building thousands of map entries
 * on every cold start.
 * Under `bun test` and `bun src/cli.ts` the transpiler runs it the same way.
 */
import data from "./vocabulary.json";

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
  // Lookup tables as text the router searches with indexOf: "\n<trigger>\t<group>,<group>\n",
  // and one line of tab-separated expansions per group (a trigger in two groups lists both,
  // the earlier first). Parsing thousands of keys into objects costs milliseconds per cold start.
  const table = (map: Map<string, number[]>) => `\n${[...map].map(([k, gs]) => `${k}\t${gs.join(",")}`).join("\n")}\n`;
  return {
    generic: data.generic,
    short: data.short,
    common: data.common,
    general: data.general,
    project: data.project,
    question: data.question,
    groups: expand.map(([, adds = []]) => adds.join("\t")).join("\n"),
    single: table(single),
    phrases: table(phrases),
    longest,
  };
}
