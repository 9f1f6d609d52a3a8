/** Friction found by a new user (issue 37): small gaps and messages that say too little or twice. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-friction-");
  repo = sb.repo("app", "https://github.com/acme/app.git");
});
afterAll(() => sb.cleanup());

test("config unset removes one key, keeping the rest of the file byte for byte", () => {
  const file = join(sb.cofferHome, "config.toml");
  expect(sb.run(["config", "get", "model.provider"]).stdout).toBe("(unset)\n");
  expect(sb.run(["config", "set", "hook.read", "auto"]).code).toBe(0);
  const before = readFileSync(file, "utf8");
  writeFileSync(file, `# mine\n${before}`);
  const kept = readFileSync(file, "utf8");
  expect(sb.run(["config", "set", "model.provider", "none"]).code).toBe(0);
  expect(sb.run(["config", "get", "model.provider"]).stdout).toBe("none\n");
  const r = sb.run(["config", "unset", "model.provider"]);
  expect(r.code).toBe(0);
  expect(readFileSync(file, "utf8")).toBe(kept);
  expect(sb.run(["config", "get", "model.provider"]).stdout).toBe("(unset)\n");
  expect(sb.run(["config", "unset", "model.provider"]).code).toBe(0);
  expect(sb.run(["config", "unset", "nope.key"]).code).toBe(2);
});

test("distill run with linked agents whose CLIs are missing exits 1 and names the CLI to install", () => {
  const bin = ["codex", "gemini", "claude"].find(
    (b) => !["/usr/local/bin", "/opt/homebrew/bin"].some((d) => existsSync(join(d, b))),
  );
  if (!bin) throw new Error("every agent CLI is installed system-wide here");
  const own = sandbox("coffer-friction-cli-");
  try {
    const env = { PATH: `${join(own.root, "empty-path")}:/usr/bin:/bin` };
    mkdirSync(join(own.root, "empty-path"));
    expect(own.run(["link", bin], { env }).code).toBe(0);
    const r = own.run(["distill", "run"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Install \`${bin}\``);
    expect(r.stderr).not.toContain("Link an agent");
    expect(own.run(["distill", "sweep"], { env }).code).toBe(0);
  } finally {
    own.cleanup();
  }
});

/** `coffer hook` with stdin on a terminal (util-linux `script` gives it one); `input` is typed, then EOF. */
function hookOnTerminal(args: string, input: string): { stdout: string; stderr: string } {
  const err = join(sb.root, "hook-stderr.txt");
  const p = Bun.spawnSync(["script", "-qec", `'${BIN}' hook ${args} 2>'${err}'`, "/dev/null"], {
    cwd: repo,
    env: sb.env,
    stdin: Buffer.from(input),
  });
  return { stdout: p.stdout.toString(), stderr: existsSync(err) ? readFileSync(err, "utf8") : "" };
}

test("coffer hook at a terminal says in one line what is wrong; from an agent's pipe it stays silent", () => {
  const typo = hookOnTerminal("promt --agent claude", "");
  expect(typo.stdout).toContain("{}");
  expect(typo.stderr).toMatch(/^coffer hook: unknown event "promt" \(one of: [^\n]*\n$/);
  const agent = hookOnTerminal("prompt --agent claud", "");
  expect(agent.stderr).toMatch(/^coffer hook: unknown agent "claud" \(one of: [^\n]*\n$/);
  const bad = hookOnTerminal("prompt --agent claude", "not json\n");
  expect(bad.stderr).toMatch(/^coffer hook: stdin is not JSON [^\n]*\n$/);
  // An agent pipes stdin: the host's JSON on stdout, nothing on stderr.
  for (const [args, stdin] of [
    [["hook", "promt", "--agent", "claude"], "{}"],
    [["hook", "prompt", "--agent", "claude"], "not json"],
  ] as const) {
    const r = sb.run([...args], { cwd: repo, stdin });
    expect(r.stdout.trim()).toBe("{}");
    expect(r.stderr).toBe("");
  }
});

test("the README's scrubbing example is scrubbed as the README says", () => {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const m = /^coffer remember "(Staging uses STRIPE_KEY=[^"]+)"\n# (coffer remember: [^\n]+)$/m.exec(readme);
  expect(m).not.toBeNull();
  const r = sb.run(["remember", m![1]!, "--json"], { cwd: repo });
  expect(r.code).toBe(0);
  expect(r.stderr.trim()).toBe(m![2]!);
  const shown = sb.run(["show", r.json().id, "--json"], { cwd: repo }).json();
  expect(JSON.stringify(shown)).toContain("STRIPE_KEY=[redacted]");
  expect(JSON.stringify(shown)).not.toContain("sk_live");
});

test("status says whether the linked agents' hooks fire, as doctor does", () => {
  const own = sandbox("coffer-friction-status-");
  try {
    const work = own.repo("app");
    expect(own.run(["status"], { cwd: work }).stdout).toContain("Hooks: no agent linked");
    expect(own.run(["link", "claude"], { cwd: work }).code).toBe(0);
    expect(own.run(["status"], { cwd: work }).stdout).toMatch(/^Hooks: claude none yet \(linked just now/m);
    const start = {
      session_id: "s1",
      transcript_path: "/tmp/s1.jsonl",
      cwd: work,
      hook_event_name: "SessionStart",
      source: "startup",
    };
    expect(
      own.run(["hook", "session-start", "--agent", "claude"], { cwd: work, stdin: JSON.stringify(start) }).code,
    ).toBe(0);
    expect(own.run(["status"], { cwd: work }).stdout).toMatch(/^Hooks: claude last fired session-start just now$/m);
    const json = own.run(["status", "--json"], { cwd: work }).json();
    expect(json.hooks).toMatchObject([{ host: "claude", last: { event: "session-start" } }]);
  } finally {
    own.cleanup();
  }
});

test("recall prints a body line only when it says more than the title", () => {
  expect(sb.run(["remember", "Deploys go through make release"], { cwd: repo }).code).toBe(0);
  expect(sb.run(["remember", "Tests run with bun test", "--title", "Testing"], { cwd: repo }).code).toBe(0);
  const once = sb.run(["recall", "deploys"], { cwd: repo }).stdout;
  expect(once.match(/Deploys go through make release/g)?.length).toBe(1);
  const both = sb.run(["recall", "testing"], { cwd: repo }).stdout;
  expect(both).toContain("Testing");
  expect(both).toContain("\n    Tests run with bun test\n");
});

test("show with fewer than 4 characters of an id says to give at least 4", () => {
  const r = sb.run(["show", "12"], { cwd: repo });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("give at least 4 characters");
});

test("an empty text argument is a usage error like a missing one: exit 2, the same two-line style", () => {
  for (const cmd of [["remember"], ["rules", "add"], ["handoff", "set"]]) {
    const none = sb.run(cmd, { cwd: repo });
    const empty = sb.run([...cmd, ""], { cwd: repo });
    const blank = sb.run([...cmd, "  "], { cwd: repo });
    const name = `coffer ${cmd.join(" ")}`;
    expect({ name, none: none.code, empty: empty.code, blank: blank.code }).toEqual({
      name,
      none: 2,
      empty: 2,
      blank: 2,
    });
    expect(none.stderr).toContain("Missing required positional argument: TEXT");
    // "<command>: what is wrong", then one indented line saying what to do.
    for (const r of [none, empty]) expect(r.stderr).toMatch(/^coffer [a-z ]+: .+\n {2}\S.+\n$/);
    expect(empty.stderr).toContain(`${cmd[0]}: text is empty`);
    expect(empty.stderr).toContain(`e.g. ${name} "`);
  }
  // Empty text read from stdin is the text's problem, not the command line's.
  expect(sb.run(["remember", "-"], { cwd: repo, stdin: "" }).code).toBe(1);
});

test("one name for one idea: --agent picks agents in distill, import native and hook", () => {
  for (const cmd of [
    ["distill", "list"],
    ["import", "native"],
    ["hook", "prompt"],
  ]) {
    const help = sb.run([...cmd, "--help"]).stdout;
    expect({ cmd, agent: /--agent\b/.test(help) }).toEqual({ cmd, agent: true });
  }
  expect(sb.run(["import", "native", "--help"]).stdout).not.toMatch(/--host\b/);
  // The old spelling still works where it was.
  expect(sb.run(["import", "native", "--host", "cursor", "--dry-run"], { cwd: repo }).code).toBe(0);
});
