/**
 * Relevance-ordered injection with a per-prompt budget (issue 15), through the compiled binary:
 * rank order, the budget, no repeated titles, no empty sections, the content gate, applies_to for
 * files not written yet, paraphrases through the coding vocabulary and through model-written
 * keywords (`coffer enrich` against a loopback model server), global conventions at session start.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bodyIds,
  cardIds,
  claudePrompt,
  claudeStart,
  contextOf,
  type EntrySpec,
  entryFiles,
  FIXTURES,
  fenced,
  hook,
  modelServer,
  placeClaude,
  projectId,
  runAsync,
  type Sandbox,
  sandbox,
  writeEntries,
  writeModelConfig,
  writeRules,
} from "../kit";

let sb: Sandbox;
let repo: string;
let pid: string;
let n = 0;

const filler = (i: number): EntrySpec => ({
  id: `F${String(i).padStart(3, "0")}FILLER`,
  title: `Filler note ${i} about lint settings`,
  body: `Unrelated note ${i}: the lint settings for module ${i} stay as they are.`,
});

beforeAll(() => {
  sb = sandbox("coffer-hook-relevance-");
  repo = sb.repo("shop");
  pid = projectId(repo);
  const long = (word: string) => `${word} details. `.repeat(30).trim();
  const entries: EntrySpec[] = [
    // Rank order: A01 has one of the terms in its title, the other in its body; Z99 both in its title.
    {
      id: "A01BODYONLY",
      title: "Otter queue notes",
      body: "Sometimes the otter queue and the badger cache interact.",
    },
    { id: "Z99TITLED", title: "Otter queue and badger cache", body: "Flush the otter queue before the badger cache." },
    // Half as relevant: worth a card, not a body.
    { id: "M01HALF", title: "Otter queue sizing", body: "Leave room for the badger." },
    // Budget: six entries about capybaras, ~600 characters each.
    ...Array.from({ length: 6 }, (_, i) => ({
      id: `C0${i}CAPYBARA`,
      title: `Capybara exporter rule ${i}`,
      body: long(`Capybara exporter rule ${i}`),
    })),
    { id: "T01SAMETITLE", title: "Walrus builds run on arm64 only", body: "Walrus builds run on arm64 only." },
    { id: "H01HUGE", title: "Narwhal migration log", body: "Narwhal migration step. ".repeat(200).trim() },
    { id: "W01WORK", title: "Work from home on Fridays", body: "The team works remotely every Friday." },
    { id: "V01VARIABLE", title: "Variable naming", body: "Rename variables to descriptive names." },
    {
      id: "P01POSTGRES",
      title: "PostgreSQL 16 is the primary datastore",
      body: "Orders and carts live there.",
      tags: ["postgres"],
    },
    { id: "S01STRIPE", title: "Webhook handlers", body: "Verify signatures first.", applies_to: ["src/stripe/**"] },
    {
      id: "I01INVOICE",
      title: "Invoice numbers restart every January",
      body: "INV-2026-0001 is the first of the year.",
    },
    { id: "E01EDITOR", title: "Editor setup", body: "VS Code with the Kotlin extension; format on save." },
    { id: "L01LAUNCH", title: "Early access in March", body: "Launching the beta to early access users in March." },
    {
      id: "F01FLOAT",
      title: "Float output in firmware logs",
      body: "LOG_INF with %f needs CONFIG_CBPRINTF_FP_SUPPORT.",
    },
    {
      id: "A02AHEAD",
      title: "Classes open for booking 14 days ahead",
      body: "The booking window opens two weeks in advance.",
    },
    {
      id: "N01NVS",
      title: "Persistent config in NVS",
      body: "Calibration offsets and radio keys are kept across reboots.",
      keywords: ["persistent settings", "flash storage", "non volatile"],
    },
    ...Array.from({ length: 20 }, (_, i) => filler(i)),
  ];
  writeEntries(sb, pid, entries);
  writeEntries(sb, "global", [
    { id: "G01ENGLISH", kind: "convention", title: "Always answer in English", body: "Even when I write in Dutch." },
    { id: "G02NOTE", kind: "note", title: "Espresso machine descaling", body: "Every six weeks." },
  ]);
});
afterAll(() => sb.cleanup());

const ask = (prompt: string, cwd = repo) =>
  contextOf(hook(sb, "claude", "prompt", claudePrompt(`rel-${++n}`, cwd, prompt)));

describe("prompt injection", () => {
  test("bodies are printed best-first, not in id order; a much weaker match is a card", () => {
    const ids = bodyIds(ask("otter queue badger cache"));
    expect(ids[0]).toBe("Z99TITLED");
    expect(ids).toContain("A01BODYONLY");
    expect(ids.indexOf("Z99TITLED")).toBeLessThan(ids.indexOf("A01BODYONLY"));
    expect(ids).not.toContain("M01HALF");
    expect(cardIds(ask("otter queue badger cache"))).toEqual(["M01HALF"]);
  });

  test("the per-prompt budget: three bodies within ~1,500 characters, then cards, then nothing", () => {
    const ctx = ask("capybara exporter rules");
    const bodies = bodyIds(ctx);
    const cards = cardIds(ctx);
    expect(bodies.length).toBeLessThanOrEqual(3);
    expect(bodies.length).toBeGreaterThan(0);
    expect(cards.length).toBeGreaterThan(0);
    expect(bodies.length + cards.length).toBeLessThanOrEqual(6);
    expect(ctx.length).toBeLessThan(2200);
    // The same routed set gives the same bytes.
    expect(ask("capybara exporter rules")).toBe(ctx);
    // A larger budget lets more bodies through.
    expect(sb.run(["config", "set", "load.prompt_max_chars", "8000"]).code).toBe(0);
    expect(bodyIds(ask("capybara exporter rules")).length).toBe(6);
    expect(sb.run(["config", "set", "load.prompt_max_chars", "1500"]).code).toBe(0);
  });

  test("a best match over twice the budget arrives as a card, never cut", () => {
    const ctx = ask("narwhal migration log");
    expect(bodyIds(ctx)).toEqual([]);
    expect(cardIds(ctx)).toEqual(["H01HUGE"]);
    expect(ctx.length).toBeLessThan(300);
  });

  test("a body that repeats its title is printed once", () => {
    const ctx = ask("walrus builds arm64");
    expect(bodyIds(ctx)).toEqual(["T01SAMETITLE"]);
    expect(ctx.split("Walrus builds run on arm64 only").length - 1).toBe(1);
  });

  test("a prompt without specific content injects nothing", () => {
    expect(ask("thanks, that worked!")).toBe("");
    expect(ask("rename this variable")).toBe("");
    expect(ask("ok")).toBe("");
    // A general-knowledge question is not about the project; the same topic asked of it is.
    expect(ask("what is a walrus build?")).toBe("");
    expect(bodyIds(ask("what is a walrus build in our setup?"))).toEqual(["T01SAMETITLE"]);
  });

  test("one everyday word names no topic, even when an entry's title holds it", () => {
    expect(ask("yes go ahead")).toBe("");
    expect(bodyIds(ask("how far ahead do classes open for booking?"))).toEqual(["A02AHEAD"]);
  });

  test("a prompt's one term found only in a body routes when the prompt speaks of the project or names an identifier", () => {
    expect(ask("explain what this extension function does")).toBe("");
    expect(ask("nice, launching now")).toBe("");
    expect(bodyIds(ask("when are we launching"))).toEqual(["L01LAUNCH"]);
    expect(bodyIds(ask("LOG_INF with %f just prints %f"))).toEqual(["F01FLOAT"]);
  });

  test("a bridge through keywords alone must explain as much of a question as two matched terms would", () => {
    // "volatile" is in one keyword phrase, and the question is about something else.
    expect(ask("what does the volatile keyword actually guarantee in C?")).toBe("");
    expect(bodyIds(ask("where do we keep non volatile settings?"))).toEqual(["N01NVS"]);
  });

  test("an instruction after a comma is an instruction: it must be explained as much as one that starts the prompt", () => {
    expect(bodyIds(ask("the invoice list is not sortable"))).toEqual(["I01INVOICE"]);
    expect(ask("the invoice list is not sortable, make it sortable")).toBe("");
  });

  test("a path named in the prompt routes applies_to entries before the file exists", () => {
    expect(bodyIds(ask("add invoice.paid handling to src/stripe/webhook.ts"))).toContain("S01STRIPE");
  });

  test("a paraphrase reaches an entry through the coding vocabulary", () => {
    expect(bodyIds(ask("which database do we use?"))).toEqual(["P01POSTGRES"]);
  });

  test("an edit instruction must be explained more than a statement naming the same things", () => {
    // "invoice" is the instruction's one topic word; the rest names the code at hand.
    expect(ask("make the invoice list sortable")).toBe("");
    expect(bodyIds(ask("the invoice list is not sortable"))).toEqual(["I01INVOICE"]);
  });

  test("asking to explain, rewrite or tweak the code at hand is an instruction too", () => {
    expect(ask("explain why the invoice list is not sortable")).toBe("");
    expect(ask("rewrite the invoice list so it is sortable")).toBe("");
    expect(ask("tweak the invoice list, it is not sortable")).toBe("");
  });

  test("a question about the code at hand (this <thing>) must explain as much as an instruction", () => {
    expect(ask("why is this invoice list not sortable?")).toBe("");
    expect(bodyIds(ask("why is the invoice list not sortable?"))).toEqual(["I01INVOICE"]);
  });

  test("a question in other words reaches its entry; the same topic in an instruction does not", () => {
    // "sits", "behind", "app" are unknown to this store: only the vocabulary ties the prompt to
    // the entry, which a question may lean on and an instruction about code at hand may not.
    expect(bodyIds(ask("what SQL engine sits behind this app?"))).toEqual(["P01POSTGRES"]);
    expect(ask("rewrite the toy SQL engine behind the parser demo in rust")).toBe("");
    // A question about code in front of the user ("this <thing>") is read like an instruction.
    expect(ask("why does this SQL engine sit behind a cache?")).toBe("");
  });

  test("a paraphrase reaches an entry through keywords a model wrote (coffer enrich)", async () => {
    // A store of its own: one entry without keywords, twenty that already have some (enrich skips them).
    const kb = sandbox("coffer-hook-keywords-");
    const krepo = kb.repo("tiers");
    const kpid = projectId(krepo);
    writeEntries(kb, kpid, [
      {
        id: "K01GAZELLE",
        title: "Gazelle tier rules",
        body: "Accounts without a subscription may create three gazelles.",
      },
      ...Array.from({ length: 20 }, (_, i) => ({ ...filler(i), keywords: ["linting"] })),
    ]);
    const kask = (prompt: string) =>
      bodyIds(contextOf(hook(kb, "claude", "prompt", claudePrompt(`kw-${++n}`, krepo, prompt))));
    const server = modelServer([{ text: JSON.stringify({ keywords: [["quota", "free plan", "pricing"]] }) }]);
    try {
      expect(kask("what is the quota on the free plan?")).toEqual([]);
      writeModelConfig(kb, "openai", server.url);
      const r = await runAsync(kb, ["enrich", "--json"], { cwd: krepo, env: { COFFER_TEST_KEY: "k" } });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ candidates: 1, enriched: 1 });
      expect(server.requests.length).toBe(1);
      expect(server.requests[0]!.raw).toContain("Gazelle tier rules");
      const dir = join(kb.cofferHome, "memory", "projects", kpid, "entries");
      const file = readdirSync(dir).find((f) => f.startsWith("K01GAZELLE"))!;
      expect(readFileSync(join(dir, file), "utf8")).toContain("keywords: [quota, free plan, pricing]");
      // The hook never calls a model: the keywords are in the index.
      expect(kask("what is the quota on the free plan?")).toEqual(["K01GAZELLE"]);
      expect(server.requests.length).toBe(1);
      // The daily token budget holds for keyword calls too: nothing is sent past it.
      expect(kb.run(["config", "set", "distill.daily_token_budget", "100"]).code).toBe(0);
      const over = await runAsync(kb, ["enrich", "--all"], { cwd: krepo, env: { COFFER_TEST_KEY: "k" } });
      expect(over.code).toBe(1);
      expect(over.stderr).toMatch(/budget/i);
      expect(server.requests.length).toBe(1);
    } finally {
      server.stop();
      kb.cleanup();
    }
  });
});

test("distilled insights carry the keywords written in the same model call; a paraphrase routes through them", async () => {
  const db = sandbox("coffer-hook-distill-keywords-");
  const drepo = db.repo("shop", "git@github.com:acme/shop.git");
  const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
  placeClaude(db, readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8"), {
    id: SESSION,
    cwd: drepo,
    from: "/home/dev/work/shop-api",
  });
  const insights = [
    {
      kind: "convention",
      title: "Money is integer cents",
      body: "Never divide money amounts; work in integer cents and round once at the end.",
      keywords: ["currency", "prices", "Floating Point", "<b>bad</b>", 42],
    },
  ];
  const server = modelServer([{ text: fenced(insights) }]);
  try {
    writeModelConfig(db, "openai", server.url);
    const r = await runAsync(db, ["distill", "run", SESSION, "--json"], { env: { COFFER_TEST_KEY: "k" } });
    expect(r.code).toBe(0);
    expect(server.requests[0]!.body.messages[0].content).toContain('"keywords"');
  } finally {
    server.stop();
  }
  const [file] = entryFiles(db);
  expect(file!.text).toContain("keywords: [currency, prices, floating point]");
  const ctx = contextOf(hook(db, "claude", "prompt", claudePrompt("dk-1", drepo, "how do we store currency?")));
  expect(ctx).toContain("Money is integer cents");
  db.cleanup();
});

test("model.keywords = on-write: remember and import ask the model once per batch; without it, no call", async () => {
  const wb = sandbox("coffer-hook-onwrite-");
  const wrepo = wb.repo("svc");
  const env = { COFFER_TEST_KEY: "k" };
  const server = modelServer([
    { text: JSON.stringify({ keywords: [["message broker", "queue"]] }) },
    { text: JSON.stringify({ keywords: [["datastore"], ["ci", "pipeline"]] }) },
  ]);
  try {
    writeModelConfig(wb, "openai", server.url);
    // The default ("enrich"): remember stays offline.
    const plain = await runAsync(wb, ["remember", "Events arrive through Kafka topic events.raw", "--json"], {
      cwd: wrepo,
      env,
    });
    expect(plain.code).toBe(0);
    expect(server.requests.length).toBe(0);
    expect(JSON.parse(plain.stdout).keywords).toBeUndefined();
    expect((await runAsync(wb, ["config", "set", "model.keywords", "on-write"], { env })).code).toBe(0);
    const r = await runAsync(wb, ["remember", "Jobs are consumed from RabbitMQ", "--json"], { cwd: wrepo, env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).keywords).toEqual(["message broker", "queue"]);
    expect(server.requests.length).toBe(1);
    // An import: one call for the entries it created.
    const other = sandbox("coffer-hook-onwrite-src-");
    try {
      writeEntries(other, "global", [
        { id: "I01PG", title: "Postgres 16 everywhere", body: "All services use Postgres 16." },
        { id: "I02GHA", title: "GitHub Actions", body: "Every repository builds on GitHub Actions." },
      ]);
      const exported = other.run(["export", "--out", join(other.root, "export.jsonl")]);
      expect(exported.code).toBe(0);
      const imp = await runAsync(wb, ["import", "coffer", join(other.root, "export.jsonl"), "--json"], { env });
      expect(imp.code).toBe(0);
      expect(JSON.parse(imp.stdout).keywords).toEqual({ enriched: 2 });
      expect(server.requests.length).toBe(2);
      const files = entryFiles(wb).filter((f) => /^keywords: /m.test(f.text));
      expect(files.length).toBe(3);
    } finally {
      other.cleanup();
    }
  } finally {
    server.stop();
    wb.cleanup();
  }
});

describe("session start", () => {
  test("a global convention reaches every session, as a card; global notes do not", () => {
    const inRepo = contextOf(hook(sb, "claude", "session-start", claudeStart("ss-1", repo)));
    expect(inRepo).toContain("- [G01ENGLISH] Always answer in English");
    expect(inRepo).not.toContain("G02NOTE");
    const outside = contextOf(hook(sb, "claude", "session-start", claudeStart("ss-2", sb.home)));
    expect(outside).toContain("- [G01ENGLISH] Always answer in English");
  });

  test("session start spends its own small budget on cards; an old global convention still makes it", () => {
    const big = sandbox("coffer-hook-start-budget-");
    try {
      const brepo = big.repo("big");
      writeEntries(big, "global", [
        {
          id: "G00ENGLISH",
          kind: "convention",
          title: "Always answer in English",
          body: "Always.",
          updated: "2025-01-01T00:00:00Z",
        },
        ...Array.from({ length: 25 }, (_, i) => ({
          id: `G1${String(i).padStart(2, "0")}PREF`,
          kind: "preference",
          title: `Preference number ${i}`,
          body: `Preference ${i}.`,
          updated: `2026-02-${String(1 + i).padStart(2, "0")}T00:00:00Z`,
        })),
        ...Array.from({ length: 50 }, (_, i) => ({
          id: `G2${String(i).padStart(2, "0")}NOTE`,
          title: `Note ${i}`,
          body: "n",
        })),
      ]);
      writeEntries(
        big,
        projectId(brepo),
        Array.from({ length: 300 }, (_, i) => ({
          id: `P${String(i).padStart(3, "0")}ENTRY`,
          kind: i % 3 === 0 ? "gotcha" : "fact",
          title: `Project entry ${i} with a reasonably long title about something specific`,
          body: "b",
        })),
      );
      const ctx = contextOf(hook(big, "claude", "session-start", claudeStart("sb-1", brepo)));
      expect(ctx).toContain("- [G00ENGLISH] Always answer in English");
      expect(ctx).not.toContain("NOTE]");
      const cards = ctx.split("\n").filter((l) => l.startsWith("- ["));
      expect(cards.join("\n").length).toBeLessThanOrEqual(2500);
      expect(ctx.length).toBeLessThan(4000);
      // Project cards: gotchas (the most useful kind here) before facts.
      const project = cards.filter((l) => l.startsWith("- [P"));
      expect(project.length).toBeGreaterThan(0);
      expect(project.every((l) => Number(l.slice(4, 7)) % 3 === 0)).toBe(true);
    } finally {
      big.cleanup();
    }
  });

  test("a handoff saved for this branch is announced in one line: age, freshness, first line (the rest stays behind coffer__resume)", () => {
    const hb = sandbox("coffer-hook-handoff-");
    try {
      const hrepo = hb.repo("svc");
      expect(contextOf(hook(hb, "claude", "session-start", claudeStart("h-1", hrepo)))).toBe("");
      expect(
        hb.run(["handoff", "set", "Half way through the retry refactor\nNext: the backoff tests"], { cwd: hrepo }).code,
      ).toBe(0);
      const ctx = contextOf(hook(hb, "claude", "session-start", claudeStart("h-2", hrepo)));
      expect(ctx).toMatch(
        /## Handoff\nA handoff for branch `main` \(saved \d+ s ago; no commits since\) begins "Half way through the retry refactor"\./,
      );
      expect(ctx).toContain("call `coffer__resume()`");
      expect(ctx).not.toContain("backoff tests");
    } finally {
      hb.cleanup();
    }
  });

  test("no empty sections; an empty store outside a repository injects nothing", () => {
    writeRules(sb, "global", "- Prefer small commits\n");
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("ss-3", repo)));
    expect(ctx).not.toContain("(none)");
    expect(ctx).not.toContain("## Project\n");
    expect(ctx).toContain("## Global\n- Prefer small commits");
    const empty = sandbox("coffer-hook-empty-");
    try {
      const r = hook(empty, "claude", "session-start", claudeStart("ss-4", empty.home));
      expect(contextOf(r)).toBe("");
    } finally {
      empty.cleanup();
    }
  });
});
