/**
 * Help a person can read (issue 29): options left-aligned in one column (a long one wraps below
 * instead of pushing the rest right), no empty [options], several-word arguments shown as
 * `<ID>...`, and the top-level help lists the flags every command takes.
 */
import { afterAll, expect, test } from "bun:test";
import { sandbox } from "../kit";

const sb = sandbox("coffer-help-");
afterAll(() => sb.cleanup());

const commands = sb
  .run(["--help"])
  .stdout.split("\nCOMMANDS\n")[1]!
  .split("\n\n")[0]!
  .split("\n")
  .map((l) => l.trim().split(/\s+/)[0]!);

/** The lines of one section (`OPTIONS`, `ARGUMENTS`...) of a help text. */
function section(text: string, name: string): string[] {
  const at = text.split("\n").indexOf(name);
  if (at < 0) return [];
  const rest = text.split("\n").slice(at + 1);
  const end = rest.indexOf("");
  return end < 0 ? rest : rest.slice(0, end);
}

test("the top-level help lists the commands and the global flags", () => {
  expect(commands.length).toBeGreaterThan(20);
  const help = sb.run(["--help"]).stdout;
  const global = section(help, "GLOBAL OPTIONS").join("\n");
  for (const flag of ["--help", "--version", "--json"]) expect(global).toContain(flag);
});

test("every command's options are left-aligned, and a command without options shows none", () => {
  for (const name of commands) {
    const help = sb.run([name, "--help"]).stdout;
    const usage = help.split("\n").find((l) => l.startsWith("USAGE"))!;
    const options = section(help, "OPTIONS");
    expect(usage.includes("[options]")).toBe(options.length > 0);
    // Each row starts at column 2 with its flag; descriptions start in one column.
    const rows = options.filter((l) => /^ {2}-/.test(l));
    expect(rows.length).toBe(options.filter((l) => !/^ {4,}\S/.test(l)).length);
    const starts = new Set(rows.filter((l) => /\S {3}\S/.test(l)).map((l) => l.search(/(?<=\S) {3}\S/) + 3));
    expect(starts.size).toBeLessThanOrEqual(1);
    for (const l of options) expect(l.length).toBeLessThanOrEqual(100);
  }
}, 60_000);

test("set-read, set-proof and edit show no [options]; forget and remember take several words", () => {
  for (const name of ["set-read", "set-proof", "edit"]) {
    const help = sb.run([name, "--help"]).stdout;
    expect(help).not.toMatch(/\[options\]|OPTIONS/i);
  }
  expect(sb.run(["forget", "--help"]).stdout).toContain("USAGE  coffer forget [options] <ID>...");
  expect(sb.run(["remember", "--help"]).stdout).toContain("<TEXT>...");
  // A long enum is named, its values in the description, not spelled into the flag column.
  const list = sb.run(["list", "--help"]).stdout;
  expect(list).toMatch(/^ {2}--kind <kind> +Entry kind: fact, decision/m);
  expect(list).toMatch(/^ {2}--scope <project\|team\|global>$/m);
  // On by default: the help names the flag one types to turn it off.
  expect(sb.run(["serve", "--help"]).stdout).toMatch(/^ {2}--no-worker +No background worker/m);
}, 30_000);

test("each command's line in `coffer --help` is the command's own description (one text, two places)", async () => {
  // src/cli.ts lists the commands with their descriptions so that `coffer --help` loads none of
  // them; each command's own meta says the same for `coffer <command> --help`.
  const { readFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const src = join(import.meta.dir, "..", "..", "src");
  const cli = readFileSync(join(src, "cli.ts"), "utf8");
  const listed = [
    ...cli.matchAll(
      /(?:"([a-z-]+)"|([a-z]+)):\s*\{\s*description:\s*"((?:[^"\\]|\\.)*)",\s*load:\s*\(\)\s*=>\s*import\("\.\/commands\/([a-z-]+)"\)/g,
    ),
  ];
  expect(listed.length).toBeGreaterThan(30);
  const differ: string[] = [];
  for (const m of listed) {
    const cmd = (await import(join(src, "commands", `${m[4]}.ts`))).default;
    const meta = typeof cmd.meta === "function" ? await cmd.meta() : cmd.meta;
    if (meta?.description !== JSON.parse(`"${m[3]}"`)) differ.push(`${m[1] ?? m[2]}: ${meta?.description}`);
  }
  expect(differ).toEqual([]);
});
