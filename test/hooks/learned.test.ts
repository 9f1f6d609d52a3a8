/**
 * The learned thesaurus in routing (routing.learned), through the compiled binary: a paraphrase
 * that shares no word with its entry reaches it through learned neighbours of two of its words;
 * one word's neighbours alone never route anything; off (the default), neighbours are not read.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Sandbox, sandbox } from "../helpers";
import { bodyIds, claudePrompt, contextOf, type EntrySpec, hook, projectId, writeEntries } from "./_hook";

let sb: Sandbox;
let repo: string;
let n = 0;

beforeAll(() => {
  sb = sandbox("coffer-hook-learned-");
  repo = sb.repo("shop");
  const entries: EntrySpec[] = [
    {
      id: "L01TOGGLES",
      title: "Weekly button check of the release toggles",
      body: "Every week someone presses each button on staging before it ships.",
    },
    ...Array.from({ length: 24 }, (_, i) => ({
      id: `F${String(i).padStart(3, "0")}FILLER`,
      title: `Filler note ${i} about lint settings`,
      body: `Unrelated note ${i}: the lint settings for module ${i} stay as they are.`,
    })),
  ];
  writeEntries(sb, projectId(repo), entries);
});
afterAll(() => sb.cleanup());

const ask = (prompt: string) => contextOf(hook(sb, "claude", "prompt", claudePrompt(`learned-${++n}`, repo, prompt)));

test("a paraphrase routes through learned neighbours only with routing.learned on", () => {
  const prompt = "do we have a daily routine where everything gets clicked?";
  expect(ask(prompt)).toBe("");
  expect(sb.run(["config", "set", "routing.learned", "on"]).code).toBe(0);
  try {
    expect(bodyIds(ask(prompt))).toEqual(["L01TOGGLES"]);
  } finally {
    expect(sb.run(["config", "set", "routing.learned", "off"]).code).toBe(0);
  }
});

test("an everyday prompt stays silent although one of its words has neighbours in an entry", () => {
  expect(sb.run(["config", "set", "routing.learned", "on"]).code).toBe(0);
  try {
    expect(ask("grab a coffee and press on")).toBe("");
    expect(ask("let's grab lunch after the meeting tomorrow")).toBe("");
  } finally {
    expect(sb.run(["config", "set", "routing.learned", "off"]).code).toBe(0);
  }
});
