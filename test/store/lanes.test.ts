import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

describe("rules lane", () => {
  test("add, show (project then global), no duplicates, never recalled", () => {
    const repo = sb.repo("rules", "https://github.com/acme/rules.git");
    expect(sb.run(["rules", "add", "Run bun test before committing"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["rules", "add", "Answer in English", "--scope", "global"], { cwd: repo }).code).toBe(0);
    const again = sb.run(["rules", "add", "run bun test before committing"], { cwd: repo });
    expect(again.code).toBe(0);
    expect(again.stdout + again.stderr).toContain("already there");
    const shown = sb.run(["rules", "--json"], { cwd: repo }).json().rules;
    expect(shown.map((l: any) => l.scope)).toEqual(["project", "global"]);
    expect(shown[0].text).toBe("- Run bun test before committing\n");
    expect(shown[1].text).toBe("- Answer in English\n");
    const human = sb.run(["rules", "show"], { cwd: repo }).stdout;
    expect(human.indexOf("Run bun test")).toBeLessThan(human.indexOf("Answer in English"));
    expect(sb.run(["recall", "bun test committing", "--json"], { cwd: repo }).json().hits).toHaveLength(0);
  });

  test("rules edit opens $EDITOR on the scope's rules.md", () => {
    const editor = join(sb.root, "fake-editor.sh");
    writeFileSync(editor, '#!/bin/sh\nprintf -- "- Edited by hand\\n" >> "$1"\n');
    chmodSync(editor, 0o755);
    expect(sb.run(["rules", "edit", "--scope", "global"], { env: { EDITOR: editor } }).code).toBe(0);
    expect(readFileSync(join(sb.cofferHome, "memory/global/rules.md"), "utf8")).toContain("- Edited by hand");
  });
});

describe("edit", () => {
  test("an edit is validated and re-indexed; a broken edit changes nothing", () => {
    const { id } = sb.run(["remember", "The queue worker is named heron", "--json"]).json();
    const file = join(sb.cofferHome, "memory/global/entries", `${id}.md`);
    const editor = join(sb.root, "sed-editor.sh");
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/heron/kestrel/g" "$1"\n');
    chmodSync(editor, 0o755);
    expect(sb.run(["edit", id], { env: { EDITOR: editor } }).code).toBe(0);
    expect(
      sb
        .run(["recall", "kestrel", "--json"])
        .json()
        .hits.map((h: any) => h.id),
    ).toEqual([id]);
    const before = readFileSync(file, "utf8");
    const breaker = join(sb.root, "break-editor.sh");
    writeFileSync(breaker, '#!/bin/sh\nprintf -- "---\\ntitle: [oops\\n---\\n" > "$1"\n');
    chmodSync(breaker, 0o755);
    const r = sb.run(["edit", id], { env: { EDITOR: breaker } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the frontmatter is not valid YAML");
    expect(readFileSync(file, "utf8")).toBe(before);
  });
});

describe("handoff and resume", () => {
  test("per project + branch, with a freshness note", () => {
    const repo = sb.repo("handoff", "https://github.com/acme/handoff.git");
    expect(sb.run(["resume", "--json"], { cwd: repo }).json()).toEqual({ found: false });
    expect(sb.run(["handoff", "set", "Half-way through the parser; next: error recovery"], { cwd: repo }).code).toBe(0);
    const r = sb.run(["resume", "--json"], { cwd: repo }).json();
    expect(r).toMatchObject({ found: true, branch: "main", body: "Half-way through the parser; next: error recovery" });
    // Freshness comes from the repository: nothing committed or changed since, so not stale.
    expect(r.note).toMatch(/^saved \d+ s ago; no commits or file changes since$/);
    expect(sb.run(["resume"], { cwd: repo }).stdout).toContain("no commits or file changes since");
    // Another branch has its own handoff.
    writeFileSync(join(repo, ".git/HEAD"), "ref: refs/heads/feature/login\n");
    expect(sb.run(["resume", "--json"], { cwd: repo }).json()).toEqual({ found: false });
    expect(sb.run(["handoff", "set", "-"], { cwd: repo, stdin: "login form done\n" }).code).toBe(0);
    expect(sb.run(["resume", "--json"], { cwd: repo }).json()).toMatchObject({
      found: true,
      branch: "feature/login",
      body: "login form done",
    });
    // Handoffs are never recalled.
    expect(sb.run(["recall", "parser error recovery", "--json"], { cwd: repo }).json().hits).toHaveLength(0);
  });

  test("outside a repository handoff is a clear error", () => {
    const r = sb.run(["handoff", "set", "x"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("handoff needs a git project");
  });
});

describe("config", () => {
  test("get, set, path; set keeps comments and other keys", () => {
    expect(sb.run(["config", "path"]).stdout.trim()).toBe(join(sb.cofferHome, "config.toml"));
    expect(sb.run(["config", "get", "hook.read"]).stdout.trim()).toBe("auto");
    writeFileSync(join(sb.cofferHome, "config.toml"), "# my settings\n[load]\nmax_tokens = 2000 # roomy\n");
    expect(sb.run(["config", "set", "hook.proof", "compact"]).code).toBe(0);
    expect(sb.run(["config", "set", "load.max_tokens", "1800"]).code).toBe(0);
    expect(readFileSync(join(sb.cofferHome, "config.toml"), "utf8")).toBe(
      '# my settings\n[load]\nmax_tokens = 1800 # roomy\n\n[hook]\nproof = "compact"\n',
    );
    expect(sb.run(["config", "get", "--json"]).json()).toMatchObject({
      "hook.proof": "compact",
      "load.max_tokens": 1800,
      "hook.read": "auto",
    });
    // A model is configured one key at a time, in the natural order.
    expect(sb.run(["config", "set", "model.provider", "openai"]).code).toBe(0);
    expect(sb.run(["config", "set", "model.model", "gpt-4o-mini"]).code).toBe(0);
    expect(sb.run(["config", "get", "model.provider"]).stdout.trim()).toBe("openai");
    expect(sb.run(["set-read", "startup"]).code).toBe(0);
    expect(sb.run(["config", "get", "hook.read"]).stdout.trim()).toBe("startup");
  });

  test("unknown keys and bad values name the key and the allowed values", () => {
    const before = readFileSync(join(sb.cofferHome, "config.toml"), "utf8");
    // Usage errors: exit 2.
    const u = sb.run(["config", "set", "hook.mode", "x"]);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain('unknown key "hook.mode" (allowed in [hook]: read, proof, deadline_ms)');
    const b = sb.run(["config", "set", "load.max_tokens", "lots"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('bad value for "load.max_tokens": "lots" (allowed: an integer 100..100000)');
    const s = sb.run(["set-read", "sometimes"]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("allowed: startup, auto, always, manual, off");
    expect(readFileSync(join(sb.cofferHome, "config.toml"), "utf8")).toBe(before);
  });
});
