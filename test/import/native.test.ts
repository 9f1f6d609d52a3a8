import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Sandbox, sandbox, writeFile } from "../kit";
import { allText, entriesOf, storedEntries } from "./helpers";

const SECRET = "hunter2-Sup3rS3cret-value";

/** Claude Code's project directory name: the cwd with every non-alphanumeric character as "-". */
const slug = (dir: string) => dir.replace(/[^A-Za-z0-9]/g, "-");

describe("coffer import native", () => {
  let sb: Sandbox;
  let shop: string;

  beforeAll(() => {
    sb = sandbox("coffer-import-native-");
    shop = sb.repo("shop", "git@github.com:acme/shop.git");
    const claude = join(sb.home, ".claude", "projects");
    // Claude Code: a transcript (its cwd tells the project) and the auto-memory directory beside it.
    writeFile(
      join(claude, slug(shop), "0b1c.jsonl"),
      `${JSON.stringify({ type: "user", sessionId: "0b1c", cwd: shop, timestamp: "2026-01-05T10:00:00Z", message: { role: "user", content: "hi" } })}\n`,
    );
    writeFile(
      join(claude, slug(shop), "memory", "MEMORY.md"),
      [
        "# Memory",
        "",
        "- [Running tests](testing.md) — how this repo runs its tests",
        "- [Who the user is](user_role.md)",
        "- User prefers tabs over spaces in Go files",
        `- Staging DB: DB_PASSWORD=${SECRET} (rotate monthly)`,
        "",
      ].join("\n"),
    );
    writeFile(
      join(claude, slug(shop), "memory", "testing.md"),
      [
        "---",
        "name: Running tests",
        "description: how this repo runs its tests",
        "type: feedback",
        "---",
        "Run `bun test --bail`; never the whole suite on the shared runner.",
        "",
      ].join("\n"),
    );
    writeFile(
      join(claude, slug(shop), "memory", "user_role.md"),
      "---\nname: Who the user is\ntype: user\n---\nA backend developer who reviews every migration by hand.\n",
    );
    // The frontmatter current Claude Code writes (a kebab-case name, type under metadata), and a team memory.
    writeFile(
      join(claude, slug(shop), "memory", "feedback_deploy_checks.md"),
      [
        "---",
        "name: deploy-checks",
        "description: Check the staging smoke test before every deploy",
        "metadata:",
        "  type: feedback",
        "---",
        "Run `make smoke ENV=staging` and wait for green before `make deploy`.",
        "",
      ].join("\n"),
    );
    writeFile(
      join(claude, slug(shop), "memory", "team", "ci.md"),
      "---\nname: ci-runner\ndescription: CI runs on self-hosted runners\nmetadata:\n  type: reference\n---\nThe runners are labelled shop-ci; jobs queue when all four are busy.\n",
    );
    const gone = join(sb.root, "work", "gone");
    writeFile(
      join(claude, slug(gone), "9f.jsonl"),
      `${JSON.stringify({ type: "user", sessionId: "9f", cwd: gone, message: { role: "user", content: "x" } })}\n`,
    );
    writeFile(join(claude, slug(gone), "memory", "MEMORY.md"), "- The gone project used port 9000\n");
    // Gemini CLI: save_memory's section in the global GEMINI.md; a repository's GEMINI.md is
    // committed content, never imported (issue 36).
    writeFile(
      join(sb.home, ".gemini", "GEMINI.md"),
      [
        "# My instructions",
        "Be terse.",
        "",
        "## Gemini Added Memories",
        "- My preferred programming language is Go.",
        "- The user's team is called Platform.",
        "",
        "## Other notes",
        "- not a saved memory",
        "",
      ].join("\n"),
    );
    writeFile(join(shop, "GEMINI.md"), "# Shop\n\n## Gemini Added Memories\n- Shop runs Stripe in test mode on CI.\n");
    // Codex: the consolidated memories file.
    writeFile(
      join(sb.home, ".codex", "memories", "MEMORY.md"),
      [
        "# Codex memories",
        "",
        "## Build",
        "Use `make build`; the Makefile wraps cargo and sets the features.",
        "",
        "## Preferences",
        "The user prefers small commits with imperative subjects.",
        "",
      ].join("\n"),
    );
  });
  afterAll(() => sb.cleanup());

  test("imports Claude auto memory, Gemini's added memories and Codex memories into the right scopes", () => {
    const dry = sb.run(["import", "native", "--dry-run", "--json"], { cwd: shop });
    expect(dry.code).toBe(0);
    expect(dry.json().created).toBe(10);
    expect(storedEntries(sb.cofferHome)).toHaveLength(0);

    const r = sb.run(["import", "native", "--json"], { cwd: shop });
    expect(r.code).toBe(0);
    const rep = r.json();
    expect(rep.created).toBe(10);
    expect(rep.skipped.map((s: any) => s.reason).join()).toContain("no longer exists");

    const shopEntries = entriesOf(sb.cofferHome, "shop");
    expect(shopEntries).toHaveLength(6);
    const deploy = shopEntries.find((e) => e.meta.title === "Check the staging smoke test before every deploy")!;
    expect(deploy.meta.kind).toBe("convention");
    expect(deploy.body).toBe("Run `make smoke ENV=staging` and wait for green before `make deploy`.");
    expect(shopEntries.find((e) => e.meta.title === "CI runs on self-hosted runners")!.meta.kind).toBe("fact");
    const tests = shopEntries.find((e) => e.meta.title === "Running tests")!;
    expect(tests.meta.kind).toBe("convention");
    expect(tests.meta.actor).toBe("import:claude");
    expect(tests.meta.source).toBe("import");
    expect(String(tests.meta.imported_from)).toStartWith(`claude:${slug(shop)}/memory/testing.md#`);
    expect(tests.body).toBe("Run `bun test --bail`; never the whole suite on the shared runner.");
    expect(shopEntries.find((e) => e.meta.title === "Who the user is")!.meta.kind).toBe("preference");
    expect(shopEntries.find((e) => e.body.startsWith("User prefers tabs"))!.meta.kind).toBe("preference");
    expect(shopEntries.some((e) => e.body.includes("[Running tests](testing.md)"))).toBe(false); // index pointers
    expect(shopEntries.some((e) => e.body.startsWith("Shop runs Stripe"))).toBe(false);

    const global = entriesOf(sb.cofferHome, "global");
    expect(global.map((e) => e.body).sort()).toEqual([
      "My preferred programming language is Go.",
      "The user prefers small commits with imperative subjects.",
      "The user's team is called Platform.",
      "Use `make build`; the Makefile wraps cargo and sets the features.",
    ]);
    expect(global.find((e) => e.meta.title === "Build")!.meta.actor).toBe("import:codex");
    expect(allText(sb.cofferHome)).not.toContain(SECRET);
    expect(allText(join(sb.cofferHome, "memory"))).not.toContain("not a saved memory");
  });

  test("a re-run imports only what is new", () => {
    const same = sb.run(["import", "native", "--json"], { cwd: shop }).json();
    expect(same.created).toBe(0);
    expect(same.already).toBe(10);
    writeFile(
      join(sb.home, ".gemini", "GEMINI.md"),
      "## Gemini Added Memories\n- My preferred programming language is Go.\n- The user's team is called Platform.\n- Deploys happen on Tuesdays.\n",
    );
    const next = sb.run(["import", "native", "--host", "gemini", "--json"], { cwd: shop }).json();
    expect(next.created).toBe(1);
    expect(next.already).toBe(2);
    expect(entriesOf(sb.cofferHome, "global").some((e) => e.body === "Deploys happen on Tuesdays.")).toBe(true);
  });

  test("--agent picks agents (--host, its old name, too); agents without memory files say so; unknown ones are refused", () => {
    const c = sb.run(["import", "native", "--agent", "codex,cursor", "--dry-run"], { cwd: sb.home });
    expect(c.code).toBe(0);
    expect(c.stdout).toContain("cursor keeps no memory files");
    const old = sb.run(["import", "native", "--host", "codex,cursor", "--dry-run"], { cwd: sb.home });
    expect(old.code).toBe(0);
    expect(old.stdout).toBe(c.stdout);
    const bad = sb.run(["import", "native", "--agent", "emacs"]);
    expect(bad.code).toBe(2);
    // Named as the flag names it: an agent, not a host.
    expect(bad.stderr).toContain('unknown agent "emacs" (--agent takes: ');
  });

  test("--undo removes one native import and nothing else", () => {
    const list = sb.run(["import", "--list", "--json"]).json();
    const first = list[list.length - 1];
    const before = storedEntries(sb.cofferHome).length;
    const u = sb.run(["import", "--undo", first.import_id, "--json"]);
    expect(u.code).toBe(0);
    expect(u.json().removed).toBe(10);
    const left = storedEntries(sb.cofferHome);
    expect(left).toHaveLength(before - 10);
    expect(left.map((e) => e.body)).toEqual(["Deploys happen on Tuesdays."]);
  });
});

test("a Claude project whose transcripts were cleaned up is found from its folder name", () => {
  const sb = sandbox("coffer-import-native-slug-");
  try {
    const blog = sb.repo("my.blog", "git@github.com:acme/blog.git");
    // Only the memory folder is left (Claude Code deletes transcripts after cleanupPeriodDays).
    writeFile(
      join(sb.home, ".claude", "projects", slug(blog), "memory", "MEMORY.md"),
      "- Posts live in content/posts\n",
    );
    const r = sb.run(["import", "native", "--host", "claude", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().created).toBe(1);
    expect(entriesOf(sb.cofferHome, "blog").map((e) => e.body)).toEqual(["Posts live in content/posts"]);
  } finally {
    sb.cleanup();
  }
});

test("Gemini CLI's private project memory folder (~/.gemini/tmp/<project>/memory/)", () => {
  const sb = sandbox("coffer-import-native-gemini-");
  try {
    const api = sb.repo("api", "git@github.com:acme/api.git");
    const tmp = join(sb.home, ".gemini", "tmp", "api");
    writeFile(join(tmp, ".project_root"), `${api}\n`); // how Gemini CLI 0.61 names a project's temp folder
    writeFile(
      join(tmp, "memory", "MEMORY.md"),
      "# Memory\n\n- [Release steps](release.md)\n- The staging API answers on port 8443\n",
    );
    writeFile(join(tmp, "memory", "release.md"), "# Release steps\n\n1. Tag\n2. Wait for CI\n3. Promote\n");
    const r = sb.run(["import", "native", "--host", "gemini", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().created).toBe(2);
    const entries = entriesOf(sb.cofferHome, "api");
    expect(entries.map((e) => e.meta.title).sort()).toEqual(["Release steps", "The staging API answers on port 8443"]);
    expect(entries.every((e) => e.meta.actor === "import:gemini")).toBe(true);
    expect(sb.run(["import", "native", "--host", "gemini", "--json"]).json().created).toBe(0);
  } finally {
    sb.cleanup();
  }
});

test("Codex MEMORY.md task groups: consolidated bullets by kind, in the repository of the group's cwd", () => {
  const sb = sandbox("coffer-import-native-codex-");
  try {
    const shop = sb.repo("shop", "git@github.com:acme/shop.git");
    // The shape Codex's memory consolidation writes (its prompt in the pinned codex 0.169 binary).
    writeFile(
      join(sb.home, ".codex", "memories", "MEMORY.md"),
      [
        "# Task Group: shop checkout and payments",
        "scope: checkout and payment fixes in the shop repository",
        `applies_to: cwd=${shop}; reuse_rule=safe for this checkout`,
        "",
        "## Task 1: fix the webhook retry, fixed",
        "### rollout_summary_files",
        `- rollout_summaries/2026-01-05-abc.md (cwd=${shop}, rollout_path=/x, updated_at=2026-01-05T10:00:00Z, thread_id=t1)`,
        "### keywords",
        "- stripe, webhook, retry",
        "",
        "## User preferences",
        '- when reviewing diffs, the user asked: "keep diffs under 200 lines" -> split large changes [Task 1]',
        "",
        "## Reusable knowledge",
        "- Webhooks are verified in src/payments/webhook.ts with the signing secret from the environment [Task 1]",
        "",
        "## Failures and how to do differently",
        "- Retrying webhooks without an idempotency key double-charged in staging -> pass the event id [Task 1][Task 2]",
        "",
        "# Task Group: shell habits",
        "scope: everyday shell use",
        `applies_to: cwd=${join(sb.root, "nowhere")}; reuse_rule=general`,
        "",
        "## User preferences",
        "- the user prefers ripgrep over grep [Task 1]",
        "",
      ].join("\n"),
    );
    const r = sb.run(["import", "native", "--host", "codex", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().created).toBe(4);
    const shopEntries = entriesOf(sb.cofferHome, "shop");
    expect(shopEntries.map((e) => e.meta.kind).sort()).toEqual(["fact", "gotcha", "preference"]);
    const gotcha = shopEntries.find((e) => e.meta.kind === "gotcha")!;
    expect(gotcha.body).toBe(
      "Retrying webhooks without an idempotency key double-charged in staging -> pass the event id",
    );
    expect(gotcha.meta.tags).toEqual(["codex-memory", "codex:shop-checkout-and-payments"]);
    const global = entriesOf(sb.cofferHome, "global");
    expect(global.map((e) => e.body)).toEqual(["the user prefers ripgrep over grep"]);
    expect(allText(join(sb.cofferHome, "memory"))).not.toContain("rollout_summaries/");
  } finally {
    sb.cleanup();
  }
});
