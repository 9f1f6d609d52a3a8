/** Irregular verb forms as alternatives (src/retrieval/analysis/irregular.ts, text.ts's inflection source). */
import { expect, test } from "bun:test";
import { irregularForms } from "../../src/retrieval/analysis/irregular";
import { analyzeQuery } from "../../src/retrieval/analysis/text";

const inflections = (q: string) =>
  analyzeQuery(q, "recall").flatMap((g) =>
    g.alternatives.filter((a) => a.source === "inflection").map((a) => `${g.text}>${a.text}`),
  );

test("each form offers the verb's other forms", () => {
  expect(irregularForms("froze")?.sort()).toEqual(["freeze", "frozen"]);
  expect(irregularForms("write")?.sort()).toEqual(["written", "wrote"]);
  expect(irregularForms("deploy")).toBeUndefined();
});

test("verbs whose forms are everyday words in software are left out (found, left, string, set)", () => {
  for (const w of ["found", "left", "string", "set", "bound", "spring", "feed", "lead"])
    expect(irregularForms(w)).toBeUndefined();
  expect(inflections("404 not found on the left panel")).toEqual([]);
});

test("function and common words are never offered (kept -> keep would find everything)", () => {
  expect(inflections("when did she freeze it")).toContain("freeze>froze");
  for (const pair of inflections("we kept what we got and went home")) {
    expect(pair).not.toMatch(/>(keep|get|got|go|went|gone)$/);
  }
});
