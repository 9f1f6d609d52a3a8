/**
 * How an agent CLI's run is read and ended (issue 36 items 7 and 13): its output is parsed in one
 * pass whatever it prints; a timeout stops the CLI with everything it started (its process group);
 * a CLI that answered and exited is done even when a child it left behind still holds its stdout.
 * Fake CLIs are small shell scripts (the real CLIs: test/agents/headless.test.ts).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { headless as claude } from "../../src/hosts/claude/headless";
import { headless as gemini } from "../../src/hosts/gemini/headless";
import { jsonObjectIn } from "../../src/hosts/headless";
import { claudeOk, entryFiles, FIXTURES, placeClaude, runAsync, running, type Sandbox, sandbox } from "../kit";

const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
const INSIGHT = {
  kind: "gotcha",
  title: "Empty cart made checkout return 500",
  body: "total() divided by cart.items.length; an empty cart gave NaN. It returns 0 early now.",
};

describe("the CLI's output is parsed in one pass (issue 36 item 7)", () => {
  // Lines that each open an object: trying the rest of the output from every one took 44 s for 80,000.
  const noise = Array.from({ length: 30_000 }, (_, i) => `{"progress": ${i}, "note": "working"`).join("\n");

  test("30,000 lines opening an object before the answer: parsed at once, the answer found", () => {
    const started = performance.now();
    const a = claude.parse({ stdout: `${noise}\n${claudeOk("[]")}\n`, stderr: "", code: 0 });
    const g = gemini.parse({ stdout: `${noise}\n${JSON.stringify({ response: "[]" })}`, stderr: noise, code: 0 });
    const none = claude.parse({ stdout: noise, stderr: noise, code: 1 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(a).toMatchObject({ ok: true, text: "[]" });
    expect(g).toMatchObject({ ok: true, text: "[]" });
    expect(none.ok).toBe(false);
  });

  test("the same document as before: alone, after notices, after a notice with a lone brace or quote", () => {
    const doc = { type: "result", result: 'a "}" and\n{ inside', n: [1, { b: "[" }] };
    const pretty = JSON.stringify(doc, null, 2);
    for (const before of [
      "",
      "  ",
      "Warning: something\n",
      "{ not json\n",
      '{"half": "open\n',
      "{]\n",
      '{"a": 1}\n',
      "}\n[\n",
      '  {"nested": {\n',
    ]) {
      expect(jsonObjectIn(`${before}${JSON.stringify(doc)}\n`)).toEqual(doc);
      expect(jsonObjectIn(`${before}${pretty}`)).toEqual(doc);
    }
    for (const text of [
      "",
      "prose only",
      "[1, 2]",
      `${JSON.stringify(doc)}\nmore after it`,
      `x ${JSON.stringify(doc)}`,
      `${JSON.stringify(doc)}}`,
      '{"a": 1, "b": }',
    ])
      expect(jsonObjectIn(text)).toBeUndefined();
  });
});

describe.skipIf(process.platform === "win32")("how a CLI run ends (issue 36 item 13)", () => {
  let sb: Sandbox;
  let repo: string;
  let fake: string;
  const pids: number[] = [];

  beforeEach(() => {
    sb = sandbox("coffer-cli-process-");
    repo = sb.repo("shop", "git@github.com:acme/shop.git");
    const transcript = readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8");
    placeClaude(sb, transcript, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
    fake = join(sb.root, "fake");
    mkdirSync(fake, { recursive: true });
  });
  afterEach(() => {
    for (const pid of pids.splice(0))
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    sb.cleanup();
  });

  /** `claude` in ~/.local/bin running `script`; $FAKE_CLI_DIR is where it may leave files. */
  function installClaude(script: string, timeoutMs: number): void {
    const dir = join(sb.home, ".local", "bin");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "claude"), `#!/bin/sh\ncat > /dev/null\n${script}\n`);
    chmodSync(join(dir, "claude"), 0o755);
    mkdirSync(sb.cofferHome, { recursive: true });
    writeFileSync(join(sb.cofferHome, "config.toml"), `[model]\nprovider = "claude-code"\ntimeout_ms = ${timeoutMs}\n`);
  }

  const childPid = (): number => {
    const file = join(fake, "child");
    expect(existsSync(file)).toBe(true);
    const pid = Number(readFileSync(file, "utf8").trim());
    pids.push(pid);
    return pid;
  };

  test("a timeout stops the CLI and the child it started (its process group)", async () => {
    // The CLI starts a child that holds its stdout, then hangs itself.
    installClaude(`sleep 300 &\necho $! > "$FAKE_CLI_DIR/child"\nsleep 300`, 1000);
    const started = Date.now();
    const r = await runAsync(sb, ["distill", "run", SESSION], { env: { FAKE_CLI_DIR: fake }, cwd: repo });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("did not answer within 1000 ms (model.timeout_ms)");
    const pid = childPid();
    // Reaped by whoever inherits it: give that a moment.
    for (let i = 0; i < 20 && running(pid); i++) await Bun.sleep(100);
    expect(running(pid)).toBe(false);
    expect(entryFiles(sb)).toEqual([]);
  }, 60_000);

  test("a CLI that answered and exited is done, though a child it started still holds its stdout", async () => {
    writeFileSync(join(fake, "answer.json"), claudeOk(JSON.stringify([INSIGHT])));
    installClaude(`cat "$FAKE_CLI_DIR/answer.json"\nsleep 300 &\necho $! > "$FAKE_CLI_DIR/child"\nexit 0`, 8000);
    const started = Date.now();
    const r = await runAsync(sb, ["distill", "run", SESSION, "--json"], { env: { FAKE_CLI_DIR: fake }, cwd: repo });
    const took = Date.now() - started;
    childPid();
    expect(r.stderr).not.toContain("did not answer");
    expect(r.code).toBe(0);
    expect(r.json().results[0].outcome).toBe("distilled");
    expect(entryFiles(sb).length).toBe(1);
    expect(took).toBeLessThan(8000);
  }, 60_000);
});
