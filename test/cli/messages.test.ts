/**
 * One message style for people (issue 29): every warning and error reads `coffer <command>: message`
 * (a hint may follow, indented), with no badges and no blank lines, on a pipe and on a terminal;
 * every usage error exits 2, and typos of a value get a did-you-mean.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-messages-");
  repo = sb.repo("app", "https://github.com/acme/app.git");
});
afterAll(() => sb.cleanup());

/** Every stderr line is `coffer <command>: ...` or an indented hint; none is blank or a badge. */
function oneStyle(stderr: string, command: string): void {
  const lines = stderr.replace(/\r/g, "").trimEnd().split("\n");
  expect(lines[0]!.startsWith(`coffer ${command}: `)).toBe(true);
  for (const l of lines.slice(1)) expect(l).toMatch(/^ {2}\S/);
  expect(stderr).not.toMatch(/WARN|ERROR|\[warn\]|\[error\]|✖/);
  expect(stderr).not.toContain(String.fromCharCode(27));
}

test.each([
  [["list", "--limit", "0"], "list"],
  [["list", "--bogus"], "list"],
  [["list", "--kind", "zz"], "list"],
  [["set-read", "bogus"], "set-read"],
  [["set-proof", "loud"], "set-proof"],
  [["config", "set", "model.provider", "foo"], "config"],
  [["config", "set", "nope.key", "1"], "config"],
  [["config", "get", "nope.key"], "config"],
  [["link", "claud"], "link"],
  [["show"], "show"],
] as const)("usage error %p: exit 2, `coffer %s: message`", (args, command) => {
  const r = sb.run([...args], { cwd: repo });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  oneStyle(r.stderr, command);
});

test("typos of a value suggest the right one", () => {
  expect(sb.run(["link", "claud"]).stderr).toContain("Did you mean `claude`?");
  expect(sb.run(["set-read", "auot"]).stderr).toContain("Did you mean `coffer set-read auto`?");
  expect(sb.run(["set-proof", "compakt"]).stderr).toContain("Did you mean `coffer set-proof compact`?");
});

test("a user error that is not a usage error exits 1 in the same style", () => {
  const r = sb.run(["show", "01ZZZZZZ"], { cwd: repo });
  expect(r.code).toBe(1);
  oneStyle(r.stderr, "show");
});

test("a warning while writing is one plain line before the result, also on a terminal", () => {
  const r = sb.run(["remember", "the staging password is hunter2secretpw"], { cwd: repo });
  expect(r.code).toBe(0);
  oneStyle(r.stderr, "remember");
  expect(r.stderr).toContain("scrubbed 1 secret");
  expect(r.stdout).toMatch(/^Remembered \S+ \(project app\)\n$/);

  // On a terminal consola would draw a badge between blank lines: not here.
  const cmd = [BIN, "remember", "the prod password is hunter3secretpw"].map((a) => `'${a}'`).join(" ");
  const env = Object.fromEntries(Object.entries(sb.env).filter(([k]) => k !== "NO_COLOR"));
  const p = Bun.spawnSync(["script", "-qec", cmd, "/dev/null"], {
    cwd: repo,
    env: { ...env, TERM: "xterm-256color" },
    stdout: "pipe",
  });
  const out = p.stdout.toString().replace(/\r/g, "");
  const lines = out.trimEnd().split("\n");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toStartWith("coffer remember: scrubbed 1 secret");
  expect(lines[1]).toMatch(/^Remembered \S+ \(project app\)$/);
});
