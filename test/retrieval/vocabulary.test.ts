/** The routing vocabulary is data: lowercase, split, well-formed (loading it does no string work). */
import { expect, test } from "bun:test";
import { analyzeQuery, isInstruction, isQuestion, pointsAtCode, stem } from "../../src/retrieval/analysis/text";

const promptGroups = (prompt: string) => analyzeQuery(prompt, "route");

import VOCABULARY from "../../src/retrieval/analysis/vocabulary.json";

const lower = (w: string) => w === w.toLowerCase() && w === w.trim() && !/\s{2,}/.test(w) && w.length > 0;

test("every word list is lowercase, trimmed and single-spaced", () => {
  for (const key of ["generic", "short", "common", "general", "project", "question", "instruction"] as const) {
    const list = VOCABULARY[key] as string[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.filter((w) => !lower(w))).toEqual([]);
  }
  for (const [triggers, adds] of VOCABULARY.expand as string[][][]) {
    expect(triggers!.length).toBeGreaterThan(0);
    expect(adds!.length).toBeGreaterThan(0);
    expect([...triggers!, ...adds!].filter((w) => !lower(w))).toEqual([]);
  }
});

test("stems match across inflections, and keep nouns that only look inflected", () => {
  expect(["deploy", "deploys", "deployed", "deploying"].map(stem)).toEqual(["deploy", "deploy", "deploy", "deploy"]);
  expect(["cache", "caches", "cached"].map(stem)).toEqual(["cach", "cach", "cach"]);
  expect(["cat", "cats"].map(stem)).toEqual(["cat", "cat"]);
  expect(stem("settings")).toBe("setting");
  expect(stem("running")).toBe("run");
});

test("prompt terms: generic words go, vocabulary phrases expand, two-letter topics stay", () => {
  expect(promptGroups("thanks, that worked!")).toEqual([]);
  expect(promptGroups("rename this variable")).toEqual([]);
  const pm = promptGroups("which package manager do we use?");
  expect(pm.map((g) => g.text)).toEqual(["package manager"]);
  expect(pm[0]!.alternatives.map((a) => a.text)).toContain("pnpm");
  expect(pm[0]!.alternatives[0]!.source).toBe("vocabulary");
  expect(promptGroups("which database do we use?")[0]!.alternatives.map((a) => a.text)).toContain("postgres");
  expect(promptGroups("what runs in CI?").map((g) => g.text)).toEqual(["ci"]);
});

test("phrases of several words are found as written or inflected, after words that start other phrases", () => {
  // analyzeQuery looks up only the runs of words some phrase may span (the macro lists the runs
  // longer phrases start with): a phrase must still be found wherever it starts.
  const phrases = (prompt: string) =>
    promptGroups(prompt)
      .filter((g) => g.phrase)
      .map((g) => g.text);
  expect(phrases("how do the services talk to each other?")).toEqual(["talk to each other"]);
  expect(phrases("the workers talked to each other over redis")).toEqual(["talked to each other"]);
  expect(phrases("we should add an index on bookings.marina_id")).toEqual(["add an index on"]);
  expect(phrases("can I roll back earlier steps if the third one fails")).toEqual(["roll back earlier steps"]);
  expect(phrases("which crate talks to the db here")).toEqual(["talks to the db"]);
  expect(phrases("the workers talked to the other team")).toEqual([]);
});

test("a question asks (question word or question mark); an instruction does not", () => {
  expect(isQuestion("which database do we use")).toBe(true);
  expect(isQuestion("What's the deploy process?")).toBe(true);
  expect(isQuestion("the suite is slow on my laptop, any flag to skip the rebuild?")).toBe(true);
  expect(isQuestion("convert this class component to a function component")).toBe(false);
  expect(isQuestion("sort the location dropdown alphabetically")).toBe(false);
  expect(isQuestion("")).toBe(false);
});

test("names of code and UI structure weigh like everyday words; the topic beside them does not", () => {
  const groups = promptGroups("the checkout button in the orders table header is misaligned");
  const common = (w: string) => groups.find((g) => g.text === w)?.common === true;
  expect(["button", "header", "misaligned"].every(common)).toBe(true);
  expect(common("checkout")).toBe(false);
});

test("an edit instruction starts with an instruction word and is not a question", () => {
  expect(isInstruction("add a checkInTime field to the bookings response")).toBe(true);
  expect(isInstruction("Make the invoice list show 50 rows")).toBe(true);
  expect(isInstruction("add rate limiting?")).toBe(false);
  expect(isInstruction("the refund in JPY came out 100x too large")).toBe(false);
  expect(isInstruction("how do I add a migration")).toBe(false);
  // Explaining, rewriting or adjusting the code in front of the user; fixing is not (an error
  // pasted with "fix it" is where a gotcha helps most).
  expect(isInstruction("explain what the lag() window function in this query does")).toBe(true);
  expect(isInstruction("rewrite count_newlines with an iterator")).toBe(true);
  expect(isInstruction("the spacing is off, tweak it")).toBe(true);
  expect(isInstruction("getting UnoptimizedQueryError on the marinas index, fix it")).toBe(false);
});

test("a prompt points at code at hand with this/these and a word that is not the project", () => {
  expect(pointsAtCode("why is this LaunchedEffect running twice")).toBe(true);
  expect(pointsAtCode("what do these flags do?")).toBe(true);
  expect(pointsAtCode("what SQL engine sits behind this app?")).toBe(false);
  expect(pointsAtCode("how do we deploy this repo")).toBe(false);
  expect(pointsAtCode("which database do we use?")).toBe(false);
});
