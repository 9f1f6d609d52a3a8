/** The routing vocabulary is data: lowercase, split, well-formed (loading it does no string work). */
import { expect, test } from "bun:test";
import { promptGroups, stem } from "../../src/store/text";
import VOCABULARY from "../../src/store/vocabulary.json";

const lower = (w: string) => w === w.toLowerCase() && w === w.trim() && !/\s{2,}/.test(w) && w.length > 0;

test("every word list is lowercase, trimmed and single-spaced", () => {
  for (const key of ["generic", "short", "common", "general", "project"] as const) {
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
  expect(pm[0]!.alternatives).toContain("pnpm");
  expect(promptGroups("which database do we use?")[0]!.alternatives).toContain("postgres");
  expect(promptGroups("the build is failing on CI").map((g) => g.text)).toContain("ci");
});
