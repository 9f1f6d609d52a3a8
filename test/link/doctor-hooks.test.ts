/**
 * Proof that the hooks fire (issue 23): `coffer doctor` shows, per linked host, the last hook event
 * Coffer received (event, time, project) and the injections of the last 7 days; a host linked for
 * more than a day with no hook seen is a warning with its likely causes; Codex's trust in Coffer's
 * hooks is read from its own config.toml (`[hooks.state]`) instead of guessed. (The hash formula
 * is checked against the real Codex in test/agents/doctor.test.ts.)
 */
import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let shop: string;
beforeEach(() => {
  sb = sandbox("coffer-doctor-hooks-");
  shop = sb.repo("shop", "git@github.com:acme/shop.git");
  sb.run(["remember", "The shop deploys with make release"], { cwd: shop });
});
afterEach(() => sb.cleanup());

const doctor = () => {
  const r = sb.run(["doctor", "--json"], { cwd: shop });
  return { code: r.code, report: r.json() };
};
const host = (report: any, name: string) => report.hosts.find((h: any) => h.host === name && h.scope === "user");
const hook = (event: string, payload: Record<string, unknown>) =>
  sb.run(["hook", event, "--agent", "claude"], { cwd: shop, stdin: JSON.stringify({ cwd: shop, ...payload }) });
const linkState = () => join(sb.cofferHome, "state", "link.json");
const fakeLinkedAt = (key: string, iso: string) => {
  const s = JSON.parse(readFileSync(linkState(), "utf8"));
  s.linked_at[key] = iso;
  writeFileSync(linkState(), JSON.stringify(s));
};
const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Codex's trusted_hash of one handler (observed with codex 0.169 app-server `hooks/list`). */
function codexHash(event: string, command: string, matcher?: string): string {
  const doc: Record<string, unknown> = {
    event_name: event,
    hooks: [{ async: false, command, timeout: 10, type: "command" }],
    ...(matcher ? { matcher } : {}),
  };
  const sorted = (v: any): any =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return `sha256:${new Bun.CryptoHasher("sha256").update(JSON.stringify(sorted(doc))).digest("hex")}`;
}

/** `[hooks.state]` trusting every Coffer hook in ~/.codex/hooks.json, as Codex's /hooks writes it. */
function trustAllCodexHooks(opts: { skip?: string; disable?: string } = {}): void {
  const file = join(sb.home, ".codex", "hooks.json");
  const hooks = JSON.parse(readFileSync(file, "utf8")).hooks as Record<string, any[]>;
  const snake = (e: string) => e.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
  let toml = "";
  for (const [event, groups] of Object.entries(hooks)) {
    const ev = snake(event);
    if (ev === opts.skip) continue;
    for (const [i, g] of groups.entries())
      for (const [j, hd] of (g.hooks as any[]).entries()) {
        const matcher = ev === "user_prompt_submit" ? undefined : g.matcher;
        toml += `\n[hooks.state."${file}:${ev}:${i}:${j}"]\ntrusted_hash = "${codexHash(ev, hd.command, matcher)}"\n`;
        if (ev === opts.disable) toml += "enabled = false\n";
      }
  }
  appendFileSync(join(sb.home, ".codex", "config.toml"), toml);
}

describe("coffer doctor: the last hook event per host", () => {
  test("Claude's hook ran 5 minutes ago; the Codex link (2 days old) never saw a hook: a warning with the likely causes", () => {
    expect(sb.run(["link", "claude"]).code).toBe(0);
    expect(sb.run(["link", "codex"]).code).toBe(0);
    expect(hook("session-start", { session_id: "s1", hook_event_name: "SessionStart", source: "startup" }).code).toBe(
      0,
    );
    // The hook ran now; make it 5 minutes ago, and the Codex link two days old.
    const db = new Database(join(sb.cofferHome, "state", "index.db"));
    db.run("UPDATE hook_last SET at_ms = ? WHERE host = 'claude'", [Date.now() - 5 * 60_000]);
    db.close();
    const linked = daysAgo(2);
    fakeLinkedAt("codex", linked);

    const { code, report } = doctor();
    expect(code).toBe(0); // warnings are not failures
    const claude = host(report, "claude");
    expect(claude.hooks_seen.last).toMatchObject({ event: "session-start", project: "shop", cwd: shop });
    expect(Date.now() - Date.parse(claude.hooks_seen.last.at)).toBeGreaterThan(4 * 60_000);
    expect(claude.hooks_seen.injections_7d).toBe(1); // the rules bundle at session start
    expect(claude.warnings).toEqual([]);
    const codex = host(report, "codex");
    expect(codex.hooks_seen).toMatchObject({ last: null, injections_7d: 0, linked_at: linked });
    expect(codex.hooks_seen.trust).toMatchObject({ total: 5, trusted: 0 });
    const none = codex.warnings.find((w: any) => w.message.startsWith("no hook event from Codex"));
    expect(none.message).toBe("no hook event from Codex since it was linked 2 days ago");
    expect(none.fix).toContain("Codex has not trusted Coffer's hooks");
    expect(none.fix).toContain("a Codex session started before linking does not load new hooks");
    expect(report.warnings.map((w: any) => w.where)).toEqual(["codex", "codex"]);

    const text = sb.run(["doctor"], { cwd: shop }).stdout;
    expect(text).toContain("hooks: last session-start 5 min ago in shop; 1 injection in 7 days");
    expect(text).toContain("! codex: linked");
    expect(text).toContain("hooks: none seen since linked 2 days ago; 0 injections in 7 days");
    expect(text).toContain("- codex: no hook event from Codex since it was linked 2 days ago");
    expect(text).toContain("likely causes: Codex has not trusted Coffer's hooks");
  });

  test("every event counts as seen, also one that injected nothing; a fresh link without hooks is no warning yet", () => {
    sb.run(["link", "claude"]);
    expect(host(doctor().report, "claude")).toMatchObject({
      hooks_seen: { last: null, injections_7d: 0 },
      warnings: [],
    });
    hook("prompt", { session_id: "s2", hook_event_name: "UserPromptSubmit", prompt: "thanks, that worked" });
    const seen = host(doctor().report, "claude").hooks_seen;
    expect(seen.last).toMatchObject({ event: "prompt", project: "shop" });
    expect(seen.injections_7d).toBe(0);
  });

  test("a hook seen before the link was rewritten does not count; re-linking moves the link time", () => {
    sb.run(["link", "claude"]);
    hook("session-start", { session_id: "s3", hook_event_name: "SessionStart", source: "startup" });
    const db = new Database(join(sb.cofferHome, "state", "index.db"));
    db.run("UPDATE hook_last SET at_ms = ? WHERE host = 'claude'", [Date.now() - 3 * 86_400_000]);
    db.close();
    const linked = daysAgo(2);
    fakeLinkedAt("claude", linked);
    const w = host(doctor().report, "claude").warnings[0];
    expect(w.message).toBe(
      "no hook event from Claude Code since it was linked 2 days ago (last: session-start 3 days ago)",
    );
    // A link that changes nothing keeps its time; one that rewrites the hooks (a moved binary) sets it anew.
    sb.run(["link", "claude"]);
    expect(JSON.parse(readFileSync(linkState(), "utf8")).linked_at.claude).toBe(linked);
    const moved = join(sb.root, "bin", "coffer");
    Bun.spawnSync(["mkdir", "-p", join(sb.root, "bin")]);
    Bun.spawnSync(["cp", BIN, moved]);
    expect(Bun.spawnSync([moved, "link", "claude"], { env: sb.env, cwd: shop }).exitCode).toBe(0);
    const at = JSON.parse(readFileSync(linkState(), "utf8")).linked_at.claude;
    expect(Date.now() - Date.parse(at)).toBeLessThan(60_000);
    sb.run(["unlink", "claude"]);
    expect(JSON.parse(readFileSync(linkState(), "utf8")).linked_at.claude).toBeUndefined();
  });

  test("hook.read off: the hooks answer nothing and record nothing, which is said instead of warned", () => {
    sb.run(["link", "claude"]);
    fakeLinkedAt("claude", daysAgo(3));
    sb.run(["config", "set", "hook.read", "off"]);
    const claude = host(doctor().report, "claude");
    expect(claude.warnings).toEqual([]);
    expect(claude.notes.join("\n")).toContain("hook.read is off");
  });
});

describe("coffer doctor reads Codex's hook trust from its config.toml", () => {
  test("all trusted: a note, no warning", () => {
    sb.run(["link", "codex"]);
    trustAllCodexHooks();
    const codex = host(doctor().report, "codex");
    expect(codex.hooks_seen.trust).toMatchObject({ total: 5, trusted: 5, untrusted: [], modified: [], disabled: [] });
    expect(codex.warnings).toEqual([]);
    expect(codex.notes.join("\n")).toContain("Codex trusts all 5 of Coffer's hooks (~/.codex/config.toml)");
  });

  test("one never trusted, one switched off, and all changed after a re-link with another binary", () => {
    sb.run(["link", "codex"]);
    trustAllCodexHooks({ skip: "pre_compact", disable: "subagent_start" });
    const t = host(doctor().report, "codex");
    expect(t.hooks_seen.trust).toMatchObject({
      total: 5,
      trusted: 3,
      untrusted: ["PreCompact"],
      disabled: ["SubagentStart"],
    });
    expect(t.warnings[0].message).toBe(
      "Codex will not run 2 of Coffer's 5 hooks (not trusted yet: PreCompact; switched off: SubagentStart; from ~/.codex/config.toml)",
    );
    const moved = join(sb.root, "bin", "coffer");
    Bun.spawnSync(["mkdir", "-p", join(sb.root, "bin")]);
    Bun.spawnSync(["cp", BIN, moved]);
    expect(Bun.spawnSync([moved, "link", "codex"], { env: sb.env, cwd: shop }).exitCode).toBe(0);
    const after = host(doctor().report, "codex").hooks_seen.trust;
    expect(after.trusted).toBe(0);
    expect(after.modified).toEqual(["SessionStart", "UserPromptSubmit", "PreToolUse"]);
  });
});

describe("coffer doctor with a broken config.toml (issue 37 item 4)", () => {
  test("the config error comes first, the hook log is still read, and the model line says why", () => {
    expect(sb.run(["link", "claude"]).code).toBe(0);
    expect(hook("session-start", { session_id: "s1", hook_event_name: "SessionStart", source: "startup" }).code).toBe(
      0,
    );
    writeFileSync(join(sb.cofferHome, "config.toml"), '[model\nprovider = "openai"\n');
    const { code, report } = doctor();
    expect(code).toBe(1);
    expect(report.store.config.ok).toBe(false);
    expect(report.problems[0].where).toBe("config");
    expect(report.problems[0].message).toContain("does not parse");
    const claude = host(report, "claude");
    expect(claude.hooks_seen.last).toMatchObject({ event: "session-start", project: "shop" });
    expect(claude.warnings).toEqual([]);
    expect(report.store.model_why).not.toBe("");

    const text = sb.run(["doctor"], { cwd: shop }).stdout;
    expect(text.split("\n")[1]).toContain("does not load as written");
    expect(text).toContain("hooks: last session-start");
    expect(text).not.toContain("none ()");
    expect(text).toMatch(/problems?:\n {2}- config: /);
  });
});
