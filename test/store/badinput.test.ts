import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, sandbox } from "../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());
const entryCount = () => {
  const dir = join(sb.cofferHome, "memory/global/entries");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".md")).length : 0;
};

describe("bad input: exit 1, a clear message, nothing written", () => {
  test("empty text", () => {
    // An empty argument is a usage error, as a missing one is (issue 37); empty stdin is the text's problem.
    for (const text of ["", "   ", "\n\t"]) {
      const r = sb.run(["remember", text]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("text is empty");
      expect(r.stdout).toBe("");
    }
    expect(sb.run(["remember", "-"], { stdin: "" }).code).toBe(1);
    expect(entryCount()).toBe(0);
  });

  test("text over the limit", () => {
    const r = sb.run(["remember", "y".repeat(8193)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("text is 8193 characters; the limit is 8192");
    expect(sb.run(["remember", "y".repeat(8192), "--json"]).code).toBe(0);
    expect(entryCount()).toBe(1);
    const t = sb.run(["remember", "ok", "--title", "t".repeat(121)]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain("title is 121 characters; the limit is 120");
  });

  test("text that is not UTF-8 is refused the same way as an argument and on stdin (issue 37)", () => {
    const before = entryCount();
    // The bytes 0xff 0xfe reach argv only through a shell: a JS string is always sent as UTF-8.
    const viaArg = Bun.spawnSync(["sh", "-c", `"$0" remember "$(printf '\\377\\376 bad')"`, BIN], {
      cwd: sb.home,
      env: sb.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const viaStdin = Bun.spawnSync([BIN, "remember", "-"], {
      cwd: sb.home,
      env: sb.env,
      stdin: new Uint8Array([0xff, 0xfe, 0x20, 0x62, 0x61, 0x64]),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(viaArg.exitCode).toBe(1);
    expect(viaStdin.exitCode).toBe(1);
    expect(viaArg.stderr.toString()).toContain("the text is not UTF-8; nothing was written");
    expect(viaArg.stderr.toString()).toBe(viaStdin.stderr.toString());
    expect(entryCount()).toBe(before);
    // U+FFFD typed on purpose is text like any other.
    expect(sb.run(["remember", "the replacement character \uFFFD is fine", "--json"]).code).toBe(0);
    expect(entryCount()).toBe(before + 1);
  });

  test("an unknown scope or kind", () => {
    const before = entryCount();
    const s = sb.run(["remember", "hello", "--scope", "company"]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('unknown scope "company" (allowed: project, team, global)');
    const k = sb.run(["remember", "hello", "--kind", "rumour"]);
    expect(k.code).toBe(2);
    expect(k.stderr).toContain('unknown kind "rumour"');
    expect(sb.run(["recall", "x", "--scope", "company"]).code).toBe(2);
    // the team lane exists only inside a repository: outside one it is a user error, nothing written
    const t = sb.run(["remember", "hello", "--scope", "team"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain("not inside a git repository");
    expect(entryCount()).toBe(before);
  });

  test("a malformed config.toml names the file and line; nothing is written", () => {
    const before = entryCount();
    mkdirSync(sb.cofferHome, { recursive: true });
    writeFileSync(join(sb.cofferHome, "config.toml"), '[hook]\nread = "auto"\nproof = [\n');
    const r = sb.run(["remember", "should not land"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config\.toml:\d+: /);
    expect(entryCount()).toBe(before);

    writeFileSync(join(sb.cofferHome, "config.toml"), '[hook]\nreed = "auto"\n');
    const u = sb.run(["remember", "should not land"]);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('unknown key "hook.reed" (allowed in [hook]: read, proof, deadline_ms)');

    writeFileSync(join(sb.cofferHome, "config.toml"), "[limits]\nbody_max = 5\n");
    const v = sb.run(["remember", "should not land"]);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('bad value for "limits.body_max": 5 (allowed: an integer 64..32768)');
    expect(entryCount()).toBe(before);

    writeFileSync(join(sb.cofferHome, "config.toml"), "[limits]\nbody_max = 64\n");
    const small = sb.run(["remember", "z".repeat(65)]);
    expect(small.code).toBe(1);
    expect(small.stderr).toContain("the limit is 64");
    writeFileSync(join(sb.cofferHome, "config.toml"), "");
  });

  test("a bad --limit is a clear error", () => {
    const r = sb.run(["list", "--limit", "lots"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--limit must be an integer");
  });
});
