/**
 * An agent's own CLI as the distillation model, with fake CLIs (small shell scripts that record
 * their argv, environment, cwd and stdin, then print what the test put in place) for what the real
 * CLIs cannot be made to do offline: zero configuration after `coffer link`, `model.provider =
 * none`, and the bad cases (missing, logged out, rate limited, timed out, prose instead of JSON):
 * one clear error in `distill run`, a failed ledger attempt, nothing written, and a sweep that stops
 * at the first such failure and then waits instead of retrying. The real CLIs: test/agents/headless.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { entryFiles, FIXTURES, placeClaude, runAsync, type Sandbox, sandbox } from "../kit";

const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
const SECOND = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c56";
const claudeFixture = readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8");
const INSIGHT = {
  kind: "gotcha",
  title: "Empty cart made checkout return 500",
  body: "total() divided by cart.items.length; an empty cart gave NaN. It returns 0 early now.",
};
const MARKER = "[coffer headless distillation run: not a user session]";

/** Records everything, then answers with the files the test wrote into $FAKE_CLI_DIR. */
const FAKE_CLI = `#!/bin/sh
d="$FAKE_CLI_DIR"
echo call >> "$d/calls"
printf '%s\\n' "$@" > "$d/argv"
pwd > "$d/cwd"
env > "$d/env"
cat > "$d/stdin"
if [ -f "$d/sleep" ]; then sleep "$(cat "$d/sleep")"; fi
[ -f "$d/stdout" ] && cat "$d/stdout"
[ -f "$d/stderr" ] && cat "$d/stderr" >&2
exit "$(cat "$d/code" 2>/dev/null || echo 0)"
`;

/** What the real CLIs print (docs/hosts-observed.md), cut to the fields Coffer reads. */
const claudeOk = (text: string) =>
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    session_id: "x",
    total_cost_usd: 0.0021,
    usage: { input_tokens: 1200, cache_read_input_tokens: 300, cache_creation_input_tokens: 0, output_tokens: 80 },
    modelUsage: { "claude-haiku-test": { inputTokens: 1200, outputTokens: 80 } },
  });

let sb: Sandbox;
let repo: string;
let fake: string;
let env: Record<string, string>;

beforeEach(() => {
  sb = sandbox("coffer-agent-cli-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
  fake = join(sb.root, "fake");
  mkdirSync(fake, { recursive: true });
  env = { FAKE_CLI_DIR: fake };
});
afterEach(() => sb.cleanup());

/** A fake CLI named `bin` in one of the usual install places (~/.local/bin), not on PATH. */
function installFake(bin: string): string {
  const dir = join(sb.home, ".local", "bin");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, bin);
  writeFileSync(path, FAKE_CLI);
  chmodSync(path, 0o755);
  return path;
}

function answer(stdout: string, opts: { code?: number; stderr?: string; sleep?: number } = {}): void {
  writeFileSync(join(fake, "stdout"), stdout);
  writeFileSync(join(fake, "code"), String(opts.code ?? 0));
  if (opts.stderr !== undefined) writeFileSync(join(fake, "stderr"), opts.stderr);
  if (opts.sleep !== undefined) writeFileSync(join(fake, "sleep"), String(opts.sleep));
  else rmSync(join(fake, "sleep"), { force: true });
}

const calls = () =>
  existsSync(join(fake, "calls")) ? readFileSync(join(fake, "calls"), "utf8").trim().split("\n").length : 0;
const seen = (name: string) => readFileSync(join(fake, name), "utf8");

function config(text: string): void {
  mkdirSync(sb.cofferHome, { recursive: true });
  writeFileSync(join(sb.cofferHome, "config.toml"), text);
}

const ledger = () => {
  const f = join(sb.cofferHome, "state", "distilled.jsonl");
  return existsSync(f)
    ? readFileSync(f, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
};

describe("zero configuration: the first linked agent's CLI", () => {
  test("link says so in one line; distill run uses `claude -p` headless: no tools, no MCP, no hooks, marker on stdin, usage and cost from its JSON", async () => {
    const claude = installFake("claude");
    const link = sb.run(["link", "claude"], { cwd: repo, env });
    expect(link.code).toBe(0);
    expect(link.stdout).toContain(
      "Distillation will use `claude -p` (your Claude plan), within 200,000 tokens a day; `coffer config set model.provider none` turns it off",
    );
    expect(JSON.parse(readFileSync(join(sb.cofferHome, "state", "agent-clis.json"), "utf8")).agents).toEqual([
      { host: "claude", path: claude, linked_at: expect.any(String) },
    ]);
    expect(existsSync(join(sb.cofferHome, "config.toml"))).toBe(false); // nothing configured
    // An agent linked later does not take over (and says nothing about distillation).
    installFake("gemini");
    const second = sb.run(["link", "gemini"], { cwd: repo, env });
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain("Distillation");

    answer(claudeOk(JSON.stringify([INSIGHT])));
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env, cwd: repo });
    expect(r.code).toBe(0);
    expect(r.json().results[0].outcome).toBe("distilled");
    expect(entryFiles(sb).length).toBe(1);

    const argv = seen("argv").trimEnd().split("\n");
    expect(argv.slice(0, 3)).toEqual(["-p", "--output-format", "json"]);
    expect(argv).toContain("--no-session-persistence");
    expect(argv).toContain("--strict-mcp-config");
    expect(argv[argv.indexOf("--tools") + 1]).toBe("");
    expect(argv[argv.indexOf("--model") + 1]).toBe("haiku");
    expect(argv[argv.indexOf("--settings") + 1]).toBe('{"disableAllHooks":true}');
    expect(argv[argv.indexOf("--system-prompt") + 1]).toStartWith(
      "You read the transcript of one coding-agent session",
    );
    expect(seen("env")).toContain("COFFER_NO_HOOKS=1\n");
    expect(seen("cwd").trim()).toBe(join(sb.cofferHome, "state", "headless", "run"));
    const stdin = seen("stdin");
    expect(stdin.startsWith(`${MARKER}\n\nTranscript of a claude session in project shop`)).toBe(true);

    const [rec] = ledger();
    expect(rec).toMatchObject({
      outcome: "distilled",
      model: "claude-code/claude-haiku-test",
      input_tokens: 1500,
      output_tokens: 80,
      tokens_estimated: false,
      cost_usd: 0.0021,
    });

    const doctor = sb.run(["doctor", "--json"], { cwd: repo, env }).json();
    expect(doctor.store.model).toBe("`claude -p` (haiku)");
    expect(doctor.store.model_why).toContain("no [model] in config.toml, so the first linked agent's CLI");
    const stats = (await runAsync(sb, ["stats", "--json"], { env, cwd: repo })).json();
    expect(stats.distill.model.source).toBe("linked");
    expect(stats.distill.by_model[0].cost_usd).toBe(0.0021);
  }, 60_000);

  test("a CLI that prints no usage: tokens estimated and marked so", async () => {
    installFake("gemini");
    expect(sb.run(["link", "gemini"], { cwd: repo, env }).stdout).toContain("Distillation will use `gemini -p`");
    answer(JSON.stringify({ session_id: "g", response: JSON.stringify([INSIGHT]) }));
    const r = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    expect(r.code).toBe(0);
    const argv = seen("argv").trimEnd().split("\n");
    expect(argv.slice(0, 4)).toEqual(["-p", "", "-o", "json"]);
    expect(argv).toContain("--skip-trust");
    expect(seen("env")).toMatch(/^GEMINI_SYSTEM_MD=.*system-[0-9a-f]{12}\.md$/m);
    const [rec] = ledger();
    expect(rec.tokens_estimated).toBe(true);
    expect(rec.input_tokens).toBeGreaterThan(100);
  }, 60_000);

  test("model.provider none turns it off; unlink forgets the agent; enrich uses the same CLI", async () => {
    installFake("codex");
    sb.run(["link", "codex"], { cwd: repo, env });
    // enrich: the keyword call goes to the zero-config CLI too.
    expect(sb.run(["remember", "Deploys go through make release", "--title", "Release"], { cwd: repo }).code).toBe(0);
    answer(
      [
        '{"type":"thread.started","thread_id":"t"}',
        `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":${JSON.stringify('{"keywords":[["shipping","publish"]]}')}}}`,
        '{"type":"turn.completed","usage":{"input_tokens":300,"cached_input_tokens":0,"output_tokens":12}}',
      ].join("\n"),
    );
    const enrich = await runAsync(sb, ["enrich", "--json"], { env, cwd: repo });
    expect(enrich.code).toBe(0);
    expect(enrich.json()).toMatchObject({ enriched: 1, tokens: 312 });
    expect(seen("argv").split("\n").slice(0, 2)).toEqual(["exec", "--json"]);

    config('[model]\nprovider = "none"\n');
    const before = calls();
    const off = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    expect(off.code).toBe(0);
    expect(off.stderr).toContain("Distillation is off");
    expect(calls()).toBe(before);

    rmSync(join(sb.cofferHome, "config.toml"));
    expect(sb.run(["unlink", "codex"], { cwd: repo, env }).code).toBe(0);
    const none = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    expect(none.stderr).toContain("No model configured or found");
    expect(calls()).toBe(before);
  }, 60_000);
});

/** A CLI provider whose executable is in none of the absolute install places on this machine. */
function missingCli(): [string, string] {
  const all: [string, string][] = [
    ["claude-code", "claude"],
    ["codex", "codex"],
    ["gemini-cli", "gemini"],
  ];
  const absent = all.find(([, bin]) => !["/usr/local/bin", "/opt/homebrew/bin"].some((d) => existsSync(join(d, bin))));
  if (!absent) throw new Error("claude, codex and gemini are all installed system-wide here: no CLI can be missing");
  return absent;
}
let missingBin = "";

describe("bad input: one clear error, a failed ledger attempt, nothing written", () => {
  const cases: {
    name: string;
    setup: () => void;
    message: string;
    kind: string;
  }[] = [
    {
      name: "the CLI is missing",
      setup: () => {
        // Not on PATH (an empty one) nor in the usual places, whatever this machine has installed.
        const [provider, bin] = missingCli();
        config(`[model]\nprovider = "${provider}"\n`);
        env.PATH = join(sb.root, "empty-path");
        missingBin = bin;
      },
      message: "was not found",
      kind: "missing",
    },
    {
      name: "logged out",
      setup: () => {
        installFake("claude");
        config('[model]\nprovider = "claude-code"\n');
        answer(
          JSON.stringify({
            type: "result",
            subtype: "success",
            is_error: true,
            result: "Not logged in · Please run /login",
            api_error_status: null,
          }),
          { code: 1 },
        );
      },
      message: "Not logged in · Please run /login",
      kind: "logged_out",
    },
    {
      name: "rate limited",
      setup: () => {
        installFake("codex");
        config('[model]\nprovider = "codex"\n');
        answer(
          [
            '{"type":"thread.started","thread_id":"t"}',
            '{"type":"turn.started"}',
            '{"type":"error","message":"Reconnecting... 1/5 (unexpected status 429 Too Many Requests: usage limit reached)"}',
            '{"type":"turn.failed","error":{"message":"unexpected status 429 Too Many Requests: usage limit reached"}}',
          ].join("\n"),
          { code: 1 },
        );
      },
      message: "429 Too Many Requests",
      kind: "quota", // a plan's usage limit (issue 37): it waits, like any rate limit
    },
    {
      name: "timed out",
      setup: () => {
        installFake("gemini");
        config('[model]\nprovider = "gemini-cli"\ntimeout_ms = 1000\n');
        answer("", { sleep: 30 });
      },
      message: "did not answer within 1000 ms (model.timeout_ms)",
      kind: "timeout",
    },
    {
      name: "prose instead of JSON",
      setup: () => {
        installFake("gemini");
        config('[model]\nprovider = "gemini-cli"\n');
        answer("Sure! Here is what I learned from this session: money is integer cents.\n");
      },
      message: "answered without its JSON result",
      kind: "malformed",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      c.setup();
      const started = Date.now();
      const r = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
      expect(Date.now() - started).toBeLessThan(20_000); // a hung CLI is stopped, not waited for
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(c.message);
      if (c.kind === "missing") {
        expect(r.stderr).toContain(`\`${missingBin}\` was not found`);
        const doctor = sb.run(["doctor", "--json"], { cwd: repo, env }).json();
        expect(doctor.problems.map((p: { message: string }) => p.message).join("\n")).toContain(
          `\`${missingBin}\` was not found`,
        );
      }
      expect(r.stderr).toContain("nothing written");
      expect(entryFiles(sb)).toEqual([]);
      const recs = ledger();
      expect(recs.length).toBe(1);
      expect(recs[0]).toMatchObject({ outcome: "failed", error: c.kind, entries: 0 });
    }, 60_000);
  }

  test("a model that answers prose inside a valid CLI result is the same malformed failure", async () => {
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n');
    answer(claudeOk("I could not find anything worth keeping, sorry!"));
    const r = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    expect(r.code).toBe(1);
    expect(entryFiles(sb)).toEqual([]);
    expect(ledger()[0]).toMatchObject({ outcome: "failed", error: "malformed", input_tokens: 1500 });
  }, 60_000);
});

describe("the sweep never storms", () => {
  test("it stops at the first failure of the model itself, then waits (back-off) instead of retrying", async () => {
    placeClaude(sb, claudeFixture, { id: SECOND, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 30 });
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
    answer(JSON.stringify({ type: "result", is_error: true, result: "Not logged in · Please run /login" }), {
      code: 1,
    });
    const first = await runAsync(sb, ["distill", "sweep"], { env, cwd: repo });
    expect(first.code).toBe(1);
    expect(first.stderr).toContain("Not logged in");
    expect(first.stderr).toContain("1 more session was not tried");
    expect(calls()).toBe(1);
    expect(ledger().map((r) => r.error)).toEqual(["logged_out"]);

    const second = await runAsync(sb, ["distill", "sweep", "--json"], { env, cwd: repo });
    expect(second.code).toBe(0);
    const out = second.json();
    expect(out.outcome).toBe("backoff");
    expect(out.backoff).toMatchObject({ failures: 1, error: "logged_out" });
    expect(calls()).toBe(1); // not asked again
    expect(ledger().length).toBe(1);

    // distill run is the explicit way to try now; a logged-out CLI does not use up the session's tries.
    for (let i = 0; i < 3; i++) await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    answer(claudeOk(JSON.stringify([INSIGHT])));
    const pick = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"], { env, cwd: repo });
    expect(pick.json().sessions.map((s: { session_id: string }) => s.session_id)).toContain(SESSION);
  }, 90_000);
});

describe("another session's environment and set-up failures (issue 36)", () => {
  test("the CLI gets the environment a person's shell would have: no agent session's variables", async () => {
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n');
    answer(claudeOk(JSON.stringify([INSIGHT])));
    const inSession = {
      CLAUDECODE: "1",
      CLAUDE_CODE_ENTRYPOINT: "cli",
      CLAUDE_PROJECT_DIR: repo,
      CLAUDE_ENV_FILE: join(sb.root, "session-env"),
      CODEX_THREAD_ID: "019d1afb-b2c7-72d3-b240-f3ee9d31b2c9",
      CODEX_SANDBOX: "seatbelt",
      GEMINI_CLI: "1",
      GEMINI_PROJECT_DIR: repo,
      OPENCODE: "1",
      CURSOR_TRACE_ID: "t",
    };
    const r = await runAsync(sb, ["distill", "run", SESSION], {
      env: { ...env, ...inSession, MY_OWN_SETTING: "kept", CLAUDE_CODE_MAX_OUTPUT_TOKENS: "4000" },
      cwd: repo,
    });
    expect(r.code).toBe(0);
    const names = seen("env")
      .split("\n")
      .map((l) => l.split("=")[0]);
    for (const name of Object.keys(inSession)) expect(names).not.toContain(name);
    expect(seen("env")).toContain("MY_OWN_SETTING=kept\n");
    expect(seen("env")).toContain("CLAUDE_CODE_MAX_OUTPUT_TOKENS=4000\n"); // the user's own setting stays
  }, 60_000);

  const setupCases: { name: string; setup: () => void; kind: string; fix: string }[] = [
    {
      name: "never logged in",
      setup: () => {
        installFake("claude");
        config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
        answer(JSON.stringify({ type: "result", is_error: true, result: "Not logged in · Please run /login" }), {
          code: 1,
        });
      },
      kind: "logged_out",
      fix: "run `claude` in a terminal and log in (/login)",
    },
    {
      name: "a refusal to run inside another session",
      setup: () => {
        installFake("claude");
        config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
        answer("", {
          code: 1,
          stderr:
            "Error: Claude Code cannot be launched inside another Claude Code session.\nNested sessions share runtime resources and will crash all active sessions.\nTo bypass this check, unset the CLAUDECODE environment variable.\n",
        });
      },
      kind: "in_session",
      fix: "outside any agent session",
    },
    {
      name: "a CLI whose interpreter is gone (exit 127)",
      setup: () => {
        const path = installFake("claude");
        writeFileSync(path, `#!/usr/bin/env coffer-test-no-such-node\n${FAKE_CLI}`);
        config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
      },
      kind: "missing",
      fix: "coffer link claude",
    },
    {
      name: "Gemini with no sign-in method (exit 41)",
      setup: () => {
        installFake("gemini");
        config('[model]\nprovider = "gemini-cli"\n\n[distill]\nsettle_minutes = 0\n');
        answer(JSON.stringify({ session_id: "g", error: { type: "Error", message: "Please set an Auth method" } }), {
          code: 41,
        });
      },
      kind: "logged_out",
      fix: "run `gemini` in a terminal and choose how to sign in",
    },
  ];
  for (const c of setupCases) {
    test(`${c.name}: never counted against a session; the sweep stops at once; doctor says it once, with the fix`, async () => {
      placeClaude(sb, claudeFixture, { id: SECOND, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 30 });
      c.setup();
      const sweep = await runAsync(sb, ["distill", "sweep"], { env, cwd: repo });
      expect(sweep.code).toBe(1);
      expect(sweep.stderr).toContain("1 more session was not tried");
      expect(sweep.stderr).toContain(c.fix);
      expect(ledger().map((r) => r.error)).toEqual([c.kind]);
      // Retried by hand more often than the sweep's three tries: the session is still pending.
      for (let i = 0; i < 3; i++) await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
      expect(ledger().filter((r) => r.session_id === SESSION).length).toBeGreaterThanOrEqual(3);
      const pick = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"], { env, cwd: repo });
      expect(pick.json().sessions.map((s: { session_id: string }) => s.session_id)).toContain(SESSION);
      const problems = sb.run(["doctor", "--json"], { cwd: repo, env }).json().problems as {
        message: string;
        fix: string;
      }[];
      const said = problems.filter((p) => p.message.includes("distillation attempt"));
      expect(said.length).toBe(1);
      expect(said[0]!.message).toContain("no session is counted as failed for it");
      expect(said[0]!.fix).toContain(c.fix);
    }, 90_000);
  }
});

describe("Coffer's own runs are never distilled", () => {
  test("a transcript whose first message carries the run marker is skipped and recorded as such", async () => {
    const id = "aaaaaaaa-0000-4000-8000-00000000cafe";
    const lines = [
      {
        type: "user",
        sessionId: id,
        cwd: repo,
        timestamp: "2026-11-20T10:00:00Z",
        message: {
          role: "user",
          content: `${MARKER}\n\nTranscript of a claude session in project shop:\n\n[user]\nhi`,
        },
      },
      {
        type: "assistant",
        sessionId: id,
        cwd: repo,
        timestamp: "2026-11-20T10:00:05Z",
        message: { role: "assistant", content: [{ type: "text", text: JSON.stringify([INSIGHT]) }] },
      },
    ];
    placeClaude(sb, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`, { id, cwd: repo, ageMinutes: 60 });
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
    const r = await runAsync(sb, ["distill", "run", id, "--json"], { env, cwd: repo });
    expect(r.code).toBe(0);
    expect(r.json().results[0]).toMatchObject({ outcome: "skipped" });
    expect(r.json().results[0].message).toContain("Coffer's own distillation run");
    expect(calls()).toBe(0);
    expect(ledger()).toEqual([expect.objectContaining({ session_id: id, outcome: "skipped", reason: "coffer_run" })]);
    const pick = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"], { env, cwd: repo });
    expect(pick.json().sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(id);
  }, 60_000);
});

describe("an offline or limited model never uses up a session's tries (issue 37 item 1)", () => {
  const claudeFailed = (result: string, status: number | null = null) =>
    JSON.stringify({ type: "result", subtype: "success", is_error: true, result, api_error_status: status });

  test("`API Error: Connection error.` is a network failure: 4 runs, the sweep still picks the session", async () => {
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
    answer(claudeFailed("API Error: Connection error."), { code: 1 });
    for (let i = 0; i < 4; i++) {
      const r = await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("Connection error");
    }
    expect(ledger().map((r) => r.error)).toEqual(["network", "network", "network", "network"]);
    const pick = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"], { env, cwd: repo });
    expect(pick.json().sessions.map((s: { session_id: string }) => s.session_id)).toContain(SESSION);
    const list = await runAsync(sb, ["distill", "list", "--json"], { env, cwd: repo });
    expect(list.json().sessions.find((s: any) => s.session_id === SESSION).status).toBe("never");
    // The sweep itself waits after such a failure instead of asking again.
    const sweep = await runAsync(sb, ["distill", "sweep", "--json"], { env, cwd: repo });
    expect(sweep.json()).toMatchObject({ outcome: "backoff", backoff: { error: "network" } });
  }, 90_000);

  test("what each CLI reports is classified by its status and error type, not a few words", async () => {
    const { headless: claude } = await import("../../src/hosts/claude/headless");
    const { headless: codex } = await import("../../src/hosts/codex/headless");
    const { headless: gemini } = await import("../../src/hosts/gemini/headless");
    const kind = (a: { ok: boolean; kind?: string }) => (a.ok ? "ok" : a.kind);
    const c = (result: string, status: number | null = null) =>
      kind(claude.parse({ stdout: claudeFailed(result, status), stderr: "", code: 1 }));
    expect(c("API Error: Connection error.")).toBe("network");
    expect(c("API Error: Request timed out.")).toBe("network");
    expect(c('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe(
      "server",
    );
    expect(c('API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal"}}')).toBe("server");
    expect(c("Claude AI usage limit reached|1767225600")).toBe("quota");
    expect(c("Credit balance is too low")).toBe("quota");
    expect(c('API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}')).toBe(
      "rate_limit",
    );
    expect(c("Invalid API key · Fix external API key", 401)).toBe("auth");
    expect(
      c('API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}'),
    ).toBe("refused");
    const x = (message: string) =>
      kind(codex.parse({ stdout: JSON.stringify({ type: "turn.failed", error: { message } }), stderr: "", code: 1 }));
    expect(
      x("stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)"),
    ).toBe("network");
    expect(x("exceeded retry limit, last status: 429 Too Many Requests")).toBe("rate_limit");
    expect(x("unexpected status 401 Unauthorized: Missing bearer")).toBe("auth");
    expect(x("unexpected status 503 Service Unavailable")).toBe("server");
    const g = (error: Record<string, unknown>) =>
      kind(gemini.parse({ stdout: JSON.stringify({ session_id: "s", error }), stderr: "", code: 1 }));
    expect(
      g({ type: "Error", message: "You exceeded your current quota", code: 429, status: "RESOURCE_EXHAUSTED" }),
    ).toBe("quota");
    expect(g({ type: "Error", message: "fetch failed" })).toBe("network");
    expect(g({ type: "Error", message: "The model is overloaded.", code: 503, status: "UNAVAILABLE" })).toBe("server");
  });

  test("a session the sweep gave up on is shown as skipped, with why and --force, in list, status and doctor", async () => {
    installFake("claude");
    config('[model]\nprovider = "claude-code"\n\n[distill]\nsettle_minutes = 0\n');
    answer(
      claudeFailed(
        'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}',
        400,
      ),
      { code: 1 },
    );
    for (let i = 0; i < 3; i++) await runAsync(sb, ["distill", "run", SESSION], { env, cwd: repo });
    expect(ledger().map((r) => r.error)).toEqual(["refused", "refused", "refused"]);
    const pick = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"], { env, cwd: repo });
    expect(pick.json().sessions.map((s: { session_id: string }) => s.session_id)).not.toContain(SESSION);

    const list = await runAsync(sb, ["distill", "list"], { env, cwd: repo });
    expect(list.stdout).toStartWith("skipped");
    expect(list.stdout).toContain(
      `skipped by the sweep after 3 failed tries (last: refused); coffer distill run ${SESSION} --force`,
    );
    const row = (await runAsync(sb, ["distill", "list", "--json"], { env, cwd: repo }))
      .json()
      .sessions.find((s: any) => s.session_id === SESSION);
    expect(row).toMatchObject({ status: "skipped", skipped: { tries: 3, error: "refused" } });

    const status = await runAsync(sb, ["status"], { env, cwd: repo });
    expect(status.stdout).toContain("Skipped: 1 session the sweep gave up on");
    const doctor = (await runAsync(sb, ["doctor", "--json"], { env, cwd: repo })).json();
    const w = doctor.warnings.find((w: any) => w.where === "distill");
    expect(w.message).toContain(`claude ${SESSION} (last: refused)`);
    expect(w.fix).toContain("--force");

    // --force tries it again; once distilled it is no longer skipped.
    answer(claudeOk(JSON.stringify([INSIGHT])));
    expect((await runAsync(sb, ["distill", "run", SESSION, "--force"], { env, cwd: repo })).code).toBe(0);
    const after = await runAsync(sb, ["distill", "list", "--json"], { env, cwd: repo });
    expect(after.json().sessions.find((s: any) => s.session_id === SESSION).status).toBe("done");
  }, 90_000);
});
