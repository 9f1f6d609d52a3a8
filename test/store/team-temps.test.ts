/**
 * A killed `promote` (any killed write) leaves `.<name>.<pid>.<n>.tmp` beside the file it was
 * writing (issue 36 item 14): in a team lane `git add .coffer` stages it, in `state/trash/` it
 * stays. `reindex`, `doctor` and the next `promote` remove those of dead writers; `scan --staged`
 * refuses to let one be committed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
let promoted: string;
let deadPid: number;

const git = (...args: string[]) => {
  const p = Bun.spawnSync(["git", ...args], { cwd: repo, env: { ...sb.env, GIT_CONFIG_NOSYSTEM: "1" } });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
};

beforeAll(() => {
  sb = sandbox("coffer-temps-");
  repo = sb.repo("app");
  const r = sb.run(["remember", "The heron gateway listens on port 9234", "--json"], { cwd: repo });
  promoted = r.json().id;
  expect(sb.run(["promote", promoted], { cwd: repo }).code).toBe(0);
  // a pid that no longer runs: a writer killed mid-write
  const p = Bun.spawnSync(["true"]);
  deadPid = p.pid;
});
afterAll(() => sb.cleanup());

const lane = () => join(repo, ".coffer", "entries");
const trashDir = () => {
  const root = join(sb.cofferHome, "state", "trash");
  return join(root, readdirSync(root).find((n) => !n.startsWith("."))!);
};
/** The temp files a promote killed mid-write leaves: the team file, the trash note. */
function litter(id: string, pid = deadPid): { team: string; note: string } {
  const team = join(lane(), `.${id}.md.${pid}.mabc1.tmp`);
  const note = join(trashDir(), `.${id}.json.${pid}.mabc2.tmp`);
  writeFileSync(team, `---\nid: ${id}\nkind: note\ntitle: half\n---\nhalf written\n`);
  writeFileSync(note, '{"id":');
  return { team, note };
}

describe("temp files of killed writes", () => {
  test("scan --staged refuses a staged temp file", () => {
    const { team } = litter("01JTEMPSTAGED0000000000000");
    git("add", ".coffer");
    const scan = sb.run(["scan", "--staged", "--json"], { cwd: repo });
    expect(scan.code).toBe(1);
    expect(scan.json().temp_files).toEqual([`.coffer/entries/.01JTEMPSTAGED0000000000000.md.${deadPid}.mabc1.tmp`]);
    const text = sb.run(["scan", "--staged"], { cwd: repo });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain("temp file");
    git("rm", "-q", "--cached", "-r", ".coffer");
    expect(existsSync(team)).toBe(true);
  });

  test("reindex removes them from the team lane and the trash; a live writer's stays", () => {
    const dead = litter("01JTEMPREINDEX000000000000");
    const live = litter("01JTEMPLIVE000000000000000", process.pid);
    const r = sb.run(["reindex", "--json"], { cwd: repo });
    expect(r.code).toBe(0);
    expect(existsSync(dead.team)).toBe(false);
    expect(existsSync(dead.note)).toBe(false);
    expect(existsSync(live.team)).toBe(true);
    expect(existsSync(live.note)).toBe(true);
  });

  test("doctor removes them and says so", () => {
    const dead = litter("01JTEMPDOCTOR0000000000000");
    const r = sb.run(["doctor"], { cwd: repo });
    expect(existsSync(dead.team)).toBe(false);
    expect(existsSync(dead.note)).toBe(false);
    expect(r.stderr).toContain("temp file");
  });

  test("the next promote tidies its lane first", () => {
    const dead = litter("01JTEMPPROMOTE000000000000");
    const r = sb.run(["remember", "The pelican queue drains every night", "--json"], { cwd: repo });
    expect(sb.run(["promote", r.json().id], { cwd: repo }).code).toBe(0);
    expect(existsSync(dead.team)).toBe(false);
  });
});
