/**
 * The sweep with no daemon: a session-start hook, after its answer, starts a detached
 * `coffer distill sweep --background` when one is due, and that sweep distills finished sessions
 * with the linked agent's CLI (a fake one here: see agent-cli.test.ts) with no other command. Not
 * again within `distill.sweep_interval_minutes`, never while another sweep holds the lock, never
 * in Coffer's own headless runs, never without a model or with the sweep turned off.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HEADLESS_CLIS } from "../../src/hosts/clis";
import { CLI_PROVIDER_HOST, CLI_PROVIDERS } from "../../src/lib/hosts";
import { selfCommand } from "../../src/lib/platform";
import {
  claudeOk,
  claudeStart,
  entryFiles,
  FIXTURES,
  hook,
  placeClaude,
  type Sandbox,
  sandbox,
  sweepFinished,
  sweepRecord,
  sweepRecordFile,
} from "../kit";

const SESSION = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c55";
const SECOND = "7c1f9a2e-4b1d-4e8a-9f3c-2d6b8e0a1c56";
const NEW_SESSION = "0b1e2c3d-4b1d-4e8a-9f3c-2d6b8e0a1c99";
const claudeFixture = readFileSync(join(FIXTURES, "claude", "coffer-context.jsonl"), "utf8");
const INSIGHT = {
  kind: "gotcha",
  title: "Empty cart made checkout return 500",
  body: "total() divided by cart.items.length; an empty cart gave NaN. It returns 0 early now.",
};

/** Counts its calls, sleeps when told, then prints what the test put in $FAKE_CLI_DIR/stdout. */
const FAKE_CLI = `#!/bin/sh
d="$FAKE_CLI_DIR"
echo call >> "$d/calls"
cat > /dev/null
if [ -f "$d/sleep" ]; then sleep "$(cat "$d/sleep")"; fi
cat "$d/stdout"
`;

let sb: Sandbox;
let repo: string;
let fake: string;
let env: Record<string, string>;

beforeEach(() => {
  sb = sandbox("coffer-bg-sweep-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  placeClaude(sb, claudeFixture, { id: SESSION, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
  fake = join(sb.root, "fake");
  mkdirSync(fake, { recursive: true });
  writeFileSync(join(fake, "stdout"), claudeOk(JSON.stringify([INSIGHT])));
  env = { FAKE_CLI_DIR: fake };
});
afterEach(() => sb.cleanup());

/** A fake `claude` in ~/.local/bin (one of the usual install places), then `coffer link claude`. */
function linkFakeClaude(): void {
  const dir = join(sb.home, ".local", "bin");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "claude"), FAKE_CLI);
  chmodSync(join(dir, "claude"), 0o755);
  expect(sb.run(["link", "claude"], { cwd: repo, env }).code).toBe(0);
}

const calls = () =>
  existsSync(join(fake, "calls")) ? readFileSync(join(fake, "calls"), "utf8").trim().split("\n").length : 0;
const recordFile = () => sweepRecordFile(sb);
const record = () => sweepRecord(sb);
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

function sessionStart(extraEnv: Record<string, string> = {}, cwd = repo) {
  const r = hook(sb, "claude", "session-start", claudeStart(NEW_SESSION, cwd), { cwd, env: { ...env, ...extraEnv } });
  expect(r.code).toBe(0);
  JSON.parse(r.stdout); // the host's valid JSON, whatever happens after
  return r;
}

describe("a session start starts the sweep in the background", () => {
  test("a finished session is distilled with the linked agent's CLI, no other command; the hook never waits for it", async () => {
    linkFakeClaude();
    expect(existsSync(join(sb.cofferHome, "config.toml"))).toBe(false); // nothing configured
    writeFileSync(join(fake, "sleep"), "2");
    sessionStart();
    // The hook has exited (and its stdout closed) while the sweep is still at work.
    expect(record()).toMatchObject({ via: "session-start" });
    expect(record().finished).toBeUndefined();
    expect(ledger()).toEqual([]);

    const done = await sweepFinished(sb);
    expect(done).toMatchObject({ via: "session-start", result: { distilled: 1, errors: [] }, failures: 0 });
    expect(calls()).toBe(1);
    expect(ledger()).toEqual([expect.objectContaining({ session_id: SESSION, outcome: "distilled", via: "sweep" })]);
    expect(entryFiles(sb).some((e) => e.text.includes(INSIGHT.title))).toBe(true);
    const log = readFileSync(join(sb.cofferHome, "state", "sweep.log"), "utf8");
    expect(log).toContain("sweep done: 1 session distilled");

    // doctor and status say when it ran and what it did.
    const doctor = sb.run(["doctor", "--json"], { cwd: repo, env });
    expect(doctor.json().store.sweep.summary).toMatch(
      /^last (just now|\d+ min ago) \(started by a session start\): 1 session distilled/,
    );
    const status = sb.run(["status"], { cwd: repo, env });
    expect(status.stdout).toMatch(/Sweep: last .* \(started by a session start\): 1 session distilled/);

    // A second session start within the interval starts none.
    placeClaude(sb, claudeFixture, { id: SECOND, cwd: repo, from: "/home/dev/work/shop-api", ageMinutes: 60 });
    const before = readFileSync(recordFile(), "utf8");
    sessionStart();
    expect(readFileSync(recordFile(), "utf8")).toBe(before);
    await Bun.sleep(1500);
    expect(calls()).toBe(1);
    expect(ledger().map((r) => r.session_id)).toEqual([SESSION]);

    // Once the interval has passed, the next session start sweeps again.
    writeFileSync(
      recordFile(),
      before.replace(done.started as string, new Date(Date.now() - 31 * 60_000).toISOString()),
    );
    rmSync(join(fake, "sleep"));
    sessionStart();
    expect((await sweepFinished(sb)).result).toMatchObject({ distilled: 1 });
    expect(ledger().map((r) => r.session_id)).toEqual([SESSION, SECOND]);
  }, 120_000);

  test("a failed sweep is logged and backed off, never shown to the agent", async () => {
    linkFakeClaude();
    writeFileSync(join(fake, "stdout"), "Sorry, I can't help with that."); // prose, not JSON
    const r = sessionStart();
    expect(r.stdout).not.toContain("sweep");
    const done = await sweepFinished(sb);
    expect(done).toMatchObject({ failures: 1, result: { distilled: 0 } });
    expect((done.result as { errors: string[] }).errors.length).toBe(1);
    const doctor = sb.run(["doctor", "--json"], { cwd: repo, env }).json().store.sweep;
    expect(doctor.failed).toBe(true);
    expect(doctor.summary).toContain("after 1 failed in a row the next waits 60 min");
    // Past the interval but within the doubled wait: none starts.
    const text = readFileSync(recordFile(), "utf8");
    writeFileSync(recordFile(), text.replace(done.started as string, new Date(Date.now() - 31 * 60_000).toISOString()));
    const before = readFileSync(recordFile(), "utf8");
    sessionStart();
    expect(readFileSync(recordFile(), "utf8")).toBe(before);
    expect(calls()).toBe(1);
  }, 120_000);
});

describe("the sweep a Claude Code session starts (issue 36)", () => {
  test("its CLI never sees the session's variables: a Claude Code that refuses to nest still distills", async () => {
    linkFakeClaude();
    // What Claude Code 2.1.39 and later answer when CLAUDECODE is set; the session's other variables too.
    const cli = join(sb.home, ".local", "bin", "claude");
    writeFileSync(
      cli,
      `#!/bin/sh
env > "$FAKE_CLI_DIR/env"
if [ -n "$CLAUDECODE" ]; then
  echo "Error: Claude Code cannot be launched inside another Claude Code session." >&2
  exit 1
fi
${FAKE_CLI.replace("#!/bin/sh\n", "")}`,
    );
    sessionStart({ CLAUDECODE: "1", CLAUDE_CODE_ENTRYPOINT: "cli", CLAUDE_PROJECT_DIR: repo });
    const done = await sweepFinished(sb);
    expect(done).toMatchObject({ result: { distilled: 1, errors: [] } });
    const seen = readFileSync(join(fake, "env"), "utf8");
    expect(seen).not.toMatch(/^(CLAUDECODE|CLAUDE_CODE_ENTRYPOINT|CLAUDE_PROJECT_DIR)=/m);
    expect(seen).toContain(`FAKE_CLI_DIR=${fake}\n`); // the rest of the user's environment stays
  }, 90_000);
});

describe("no background sweep", () => {
  test("inside Coffer's own headless runs (the environment variable, or the run folder)", async () => {
    linkFakeClaude();
    sessionStart({ COFFER_NO_HOOKS: "1" });
    const run = join(sb.cofferHome, "state", "headless", "run");
    mkdirSync(run, { recursive: true });
    sessionStart({}, run);
    await Bun.sleep(1000);
    expect(record()).toBeUndefined();
    expect(calls()).toBe(0);
  }, 60_000);

  test("without a model, or with the sweep turned off", async () => {
    // Linked, but its CLI is nowhere to be found: no model.
    expect(sb.run(["link", "claude"], { cwd: repo, env }).code).toBe(0);
    sessionStart();
    expect(record()).toBeUndefined();
    expect(sb.run(["doctor", "--json"], { cwd: repo, env }).json().store.sweep.summary).toStartWith("none yet");

    linkFakeClaude();
    for (const toml of ["[distill]\nsweep = false\n", '[model]\nprovider = "none"\n']) {
      writeFileSync(join(sb.cofferHome, "config.toml"), toml);
      sessionStart();
      expect(record()).toBeUndefined();
    }
    await Bun.sleep(1000);
    expect(calls()).toBe(0);
    expect(ledger()).toEqual([]);
  }, 60_000);

  test("while another sweep holds the lock; `coffer distill sweep` then says so instead of running beside it", async () => {
    linkFakeClaude();
    mkdirSync(join(sb.cofferHome, "state"), { recursive: true });
    writeFileSync(join(sb.cofferHome, "state", "sweep.lock"), JSON.stringify({ pid: process.pid, at: Date.now() }));
    sessionStart();
    expect(record()).toBeUndefined();
    const manual = sb.run(["distill", "sweep", "--json"], { cwd: repo, env });
    expect(manual.code).toBe(0);
    expect(manual.json()).toMatchObject({ outcome: "busy" });
    expect(calls()).toBe(0);
  }, 60_000);
});

describe("the facts the hook uses without loading distill/", () => {
  test("each CLI provider's agent in lib/hosts.ts is the one its headless CLI runs", () => {
    for (const p of CLI_PROVIDERS) expect<string>(CLI_PROVIDER_HOST[p]).toBe(HEADLESS_CLIS[p].host);
  });

  test("the sweep runs this Coffer again: the compiled binary alone, or Bun with the entry script", () => {
    expect(selfCommand("/$bunfs/root/coffer", "/opt/coffer")).toEqual(["/opt/coffer"]);
    expect(selfCommand("B:/~BUN/root/coffer.exe", "C:\\coffer.exe")).toEqual(["C:\\coffer.exe"]);
    expect(selfCommand("/src/coffer/src/cli.ts", "/usr/bin/bun")).toEqual(["/usr/bin/bun", "/src/coffer/src/cli.ts"]);
  });
});
