/**
 * `coffer edit` with a scripted $EDITOR: an edit that does not validate is shown, never saved and
 * never thrown away; the next `coffer edit` continues from the user's text.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let id: string;
let file: string;

/** An $EDITOR that runs a sed script on the file it is given (and counts its runs). */
function editor(name: string, sed: string): string {
  const path = join(sb.root, name);
  writeFileSync(path, `#!/bin/sh\necho run >> "${path}.runs"\nsed -i -e '${sed}' "$1"\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  sb = sandbox("coffer-edit-");
  const r = sb.run(["remember", "The importer needs the VPN", "--kind", "gotcha", "--json"]);
  id = r.json().id;
  file = join(sb.cofferHome, "memory", "global", "entries", `${id}.md`);
});
afterAll(() => sb.cleanup());

const draft = () => join(sb.cofferHome, "state", "edit", `${id}.md`);

test("an unknown kind is refused, the entry is unchanged and the user's text is kept in a file", () => {
  const before = readFileSync(file, "utf8");
  const ed = editor("banana.sh", "s/^kind: gotcha$/kind: banana/; s/needs the VPN/needs the VPN and a warm cache/");
  const r = sb.run(["edit", id], { env: { EDITOR: ed } });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('unknown kind "banana"');
  expect(r.stderr).toContain(draft());
  expect(readFileSync(file, "utf8")).toBe(before);
  expect(readFileSync(draft(), "utf8")).toContain("needs the VPN and a warm cache");
});

test("the next edit continues from the kept text; fixing the kind saves everything the user wrote", () => {
  const ed = editor("fix.sh", "s/^kind: banana$/kind: convention/");
  const r = sb.run(["edit", id], { env: { EDITOR: ed } });
  expect(r.stderr).toContain("Continuing your unsaved edit");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Saved ${id.slice(-8)}`); // the handle
  const shown = sb.run(["show", id, "--json"]).json();
  expect(shown.kind).toBe("convention");
  expect(shown.body).toBe("The importer needs the VPN and a warm cache");
  expect(existsSync(draft())).toBe(false);
});

test("invalid YAML and a removed frontmatter are refused the same way", () => {
  for (const [name, sed] of [
    ["yaml.sh", "s/^tags: .*$/tags: [unclosed/"],
    ["nofm.sh", "1d"],
  ] as const) {
    const before = readFileSync(file, "utf8");
    const r = sb.run(["edit", id], { env: { EDITOR: editor(name, sed) } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Not saved: the frontmatter/);
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(existsSync(draft())).toBe(true);
    // start over: delete the draft, as the message says
    Bun.spawnSync(["rm", draft()]);
  }
});

test("on a terminal the editor reopens with the user's text until it validates", () => {
  // First run breaks the kind (and adds text); second run fixes the kind only.
  const counter = join(sb.root, "tty.count");
  const ed = join(sb.root, "tty.sh");
  writeFileSync(
    ed,
    `#!/bin/sh
n=$(cat "${counter}" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${counter}"
if [ $n -eq 1 ]; then sed -i -e 's/^kind: convention$/kind: banana/' -e 's/warm cache/warm cache, on Mondays too/' "$1"
else sed -i -e 's/^kind: banana$/kind: fact/' "$1"; fi
`,
  );
  chmodSync(ed, 0o755);
  const cmd = `printf 'y\\n' | script -qec "'${BIN}' edit ${id}" /dev/null`;
  const p = Bun.spawnSync(["sh", "-c", cmd], {
    env: { ...sb.env, EDITOR: ed, TERM: "dumb" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = p.stdout.toString() + p.stderr.toString();
  expect(out).toContain('unknown kind "banana"');
  expect(readFileSync(counter, "utf8").trim()).toBe("2");
  const shown = sb.run(["show", id, "--json"]).json();
  expect(shown.kind).toBe("fact");
  expect(shown.body).toBe("The importer needs the VPN and a warm cache, on Mondays too");
});

test("an editor that is not installed: one line saying so and how to set EDITOR, exit 1, nothing left behind (issue 37)", () => {
  const other = sb.run(["remember", "The cache warms on deploy", "--json"]).json().id as string;
  const entry = join(sb.cofferHome, "memory", "global", "entries", `${other}.md`);
  const before = readFileSync(entry, "utf8");
  const r = sb.run(["edit", other], { env: { EDITOR: "nonexistent-editor" } });
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('the editor "nonexistent-editor" ($EDITOR) was not found');
  expect(lines[0]).toContain(`EDITOR=nano coffer edit ${other.slice(-8)}`);
  expect(readFileSync(entry, "utf8")).toBe(before);
  expect(existsSync(join(sb.cofferHome, "state", "edit", `${other}.md`))).toBe(false);
  // an editor given with its flags is looked up by its first word
  const flags = sb.run(["edit", other], { env: { VISUAL: "nonexistent-editor --wait" } });
  expect(flags.code).toBe(1);
  expect(flags.stderr.trim()).toContain('"nonexistent-editor" ($VISUAL) was not found: set VISUAL');
});
