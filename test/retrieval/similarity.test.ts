/**
 * Similarity in the prompt hook (issue 35): a paraphrase that shares too little wording with its
 * entry for the word gate reaches it through the entry vectors; an everyday prompt stays silent
 * although entries near it in meaning exist; `routing.similarity = off` is the word match alone.
 * The store is the slotbook project of routing set E (scripts/bench/routing-e/entries.txt).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bodyIds, claudePrompt, contextOf, hook, sandbox, writeEntries } from "../kit";

const sb = sandbox("coffer-similarity-");
let repo = "";
const idOf = new Map<string, string>();

beforeAll(() => {
  repo = sb.repo("slotbook", "git@github.com:studiohq/slotbook.git");
  const lines = readFileSync(join(import.meta.dir, "../../scripts/bench/routing-e/entries.txt"), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith("@project slotbook"));
  const project = lines.slice(
    start + 1,
    lines.findIndex((l, i) => i > start && l.startsWith("@")),
  );
  const entries = project
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l, i) => {
      const [key, kind, title, tags, , ...body] = l.split("|").map((x) => x.trim());
      const id = `01JSIM${String(i).padStart(20, "0")}`;
      idOf.set(key!, id);
      return { id, kind, title: title!, tags: tags!.split(",").map((t) => t.trim()), body: body.join("|") };
    });
  expect(entries.length).toBeGreaterThan(60);
  const pid = sb.run(["status", "--json"], { cwd: repo }).json().project.id as string;
  writeEntries(sb, pid, entries);
  expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
});
afterAll(() => sb.cleanup());

let session = 0;
const ask = (prompt: string) =>
  contextOf(hook(sb, "claude", "prompt", claudePrompt(`sim-${++session}`, repo, prompt), { cwd: repo }));
const similarity = (value: "on" | "off") =>
  writeFileSync(join(sb.cofferHome, "config.toml"), `[routing]\nsimilarity = "${value}"\n`);

describe("similarity in the prompt hook", () => {
  const paraphrase = "someone hit the checkout button twice quickly, could they be billed twice";

  test("a paraphrase reaches its entry only through similarity", () => {
    similarity("off");
    expect(bodyIds(ask(paraphrase))).not.toContain(idOf.get("sb-idempotency")!);
    similarity("on");
    expect(bodyIds(ask(paraphrase))).toContain(idOf.get("sb-idempotency")!);
  });

  test("an everyday prompt stays silent although entries near it in meaning exist", () => {
    similarity("on");
    const prompt = "add a loading spinner to the instructor list while it fetches";
    expect(ask(prompt)).toBe("");
    // recall, asked the same, finds entries by meaning: they exist, the hook just does not hand them over
    const hits = sb.run(["recall", prompt, "--explain", "--json"], { cwd: repo }).json().hits as {
      explain: { similarity?: number };
    }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(Math.max(...hits.map((h) => h.explain.similarity ?? 0))).toBeGreaterThan(0.3);
    // and says so beside the matched terms
    expect(sb.run(["recall", prompt, "--explain"], { cwd: repo }).stdout).toMatch(/similarity 0\.\d\d/);
    expect(ask("ok thanks, that looks good, go ahead")).toBe("");
  });
});

describe("related entries", () => {
  test("coffer show lists the entries near one in meaning, not itself", () => {
    const id = idOf.get("sb-stripe-webhook")!;
    const shown = sb.run(["show", id, "--json"], { cwd: repo }).json();
    const related = shown.related as { id: string; title: string; similarity: number }[];
    expect(related.length).toBeGreaterThan(0);
    expect(related.map((r) => r.id)).not.toContain(id);
    expect(related.every((r) => r.similarity >= 0.5)).toBe(true);
    // the other Stripe webhook entry is its nearest
    expect(related[0]!.id).toBe(idOf.get("sb-stripe-cli")!);
    // piped, show prints the file as it is
    expect(sb.run(["show", id], { cwd: repo }).stdout).not.toContain("Related");
  });
});
