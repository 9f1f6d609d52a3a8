/**
 * `coffer link <host> --native-memory off` switches the agent's own memory off; before it does,
 * it offers to import what the agent saved there (a question on a terminal, a hint elsewhere).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox, writeFile } from "../kit";
import { entriesOf, storedEntries } from "./helpers";

const slug = (dir: string) => dir.replace(/[^A-Za-z0-9]/g, "-");

describe("coffer link --native-memory off offers the import first", () => {
  let sb: Sandbox;
  let repo: string;

  beforeEach(() => {
    sb = sandbox("coffer-link-offer-");
    repo = sb.repo("site", "git@github.com:acme/site.git");
    const dir = join(sb.home, ".claude", "projects", slug(repo));
    writeFile(join(dir, "1a.jsonl"), `${JSON.stringify({ type: "user", sessionId: "1a", cwd: repo })}\n`);
    writeFile(
      join(dir, "memory", "MEMORY.md"),
      "- The site builds with Astro; run `npm run build` before deploying\n- User prefers British spelling\n",
    );
  });
  afterEach(() => sb.cleanup());

  const settings = () => JSON.parse(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8"));

  test("without a terminal: a hint names the command; memory is switched off and the choice saved", () => {
    const r = sb.run(["link", "claude", "--native-memory", "off"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("2 memories claude saved itself are not in Coffer yet");
    expect(r.stderr).toContain("coffer import native --agent claude");
    expect(settings().autoMemoryEnabled).toBe(false);
    expect(sb.run(["config", "get", "native_memory.claude"]).stdout.trim()).toBe("off");
    expect(storedEntries(sb.cofferHome)).toHaveLength(0);
    // After the import there is nothing left to offer.
    expect(sb.run(["import", "native", "--agent", "claude"], { cwd: repo }).code).toBe(0);
    const again = sb.run(["link", "claude", "--native-memory", "off"], { cwd: repo });
    expect(again.stderr).not.toContain("not in Coffer yet");
  });

  test("on a terminal: yes imports before switching off", () => {
    const p = Bun.spawnSync(["script", "-qec", `${BIN} link claude --native-memory off`, "/dev/null"], {
      cwd: repo,
      env: { ...sb.env, TERM: "xterm" },
      stdin: Buffer.from("y\r"),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.exitCode).toBe(0);
    expect(p.stdout.toString()).toContain("Imported 2 of claude's own memories");
    expect(
      entriesOf(sb.cofferHome, "site")
        .map((e) => e.body)
        .sort(),
    ).toEqual(["The site builds with Astro; run `npm run build` before deploying", "User prefers British spelling"]);
    expect(settings().autoMemoryEnabled).toBe(false);
  });

  test("--dry-run offers nothing and writes nothing; keep turns it back on", () => {
    const d = sb.run(["link", "claude", "--native-memory", "off", "--dry-run"], { cwd: repo });
    expect(d.code).toBe(0);
    expect(d.stderr).not.toContain("not in Coffer yet");
    expect(sb.run(["config", "get", "native_memory.claude"]).stdout.trim()).toBe("keep");
    expect(sb.run(["link", "claude", "--native-memory", "off"], { cwd: repo }).code).toBe(0);
    expect(sb.run(["link", "claude", "--native-memory", "keep"], { cwd: repo }).code).toBe(0);
    expect(settings().autoMemoryEnabled).toBeUndefined();
    expect(sb.run(["link", "claude", "--native-memory", "maybe"], { cwd: repo }).code).toBe(2);
  });
});
