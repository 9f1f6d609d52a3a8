/**
 * `coffer --help` and `coffer <command> --help`, rendered from each command's declared args:
 * left-aligned columns (a long option gets its description on the next line instead of pushing
 * every other one right), no empty sections, `<ID>...` for commands that take several words.
 */
import type { ArgDef, CommandDef } from "citty";
import { WORDS } from "./_args";

/** Examples shown under a command's --help. */
export const EXAMPLES = Symbol.for("coffer.examples");
export type WithExamples = CommandDef<any> & { [EXAMPLES]?: string[] };

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolve = async <T>(v: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

/** The widest left column; a longer label puts its description on the next line. */
const LABEL_MAX = 28;
const WIDTH = 100;

/** Two columns, the left one padded to the widest label (at most LABEL_MAX), the right one wrapped. */
export function columns(rows: [string, string][]): string[] {
  const width = Math.max(0, ...rows.map(([l]) => l.length).filter((n) => n <= LABEL_MAX));
  const indent = 2 + width + 3;
  const out: string[] = [];
  for (const [label, text] of rows) {
    const lines = wrap(text, WIDTH - indent);
    if (label.length > width) {
      out.push(`  ${label}`);
      for (const l of lines) out.push(`${" ".repeat(indent)}${l}`);
      continue;
    }
    out.push(`  ${label.padEnd(width)}   ${lines[0] ?? ""}`.trimEnd());
    for (const l of lines.slice(1)) out.push(`${" ".repeat(indent)}${l}`);
  }
  return out;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (cur && cur.length + 1 + word.length > width) {
      lines.push(cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  if (cur) lines.push(cur);
  return lines;
}

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();

function optionRow(name: string, def: ArgDef): [string, string] {
  const flag = kebab(name);
  let description = def.description ?? "";
  if (def.type === "boolean" && def.default === true) {
    // On by default: the flag anyone types is the --no- one.
    return [`--no-${flag}`, description];
  }
  const aliases = ("alias" in def && def.alias ? [def.alias].flat() : []).filter((a) => a.length === 1);
  let label = `${aliases.map((a) => `-${a}, `).join("")}--${flag}`;
  if (def.type === "enum") {
    const values = (def.options ?? []).join("|");
    label += values.length <= 20 ? ` <${values}>` : ` <${def.valueHint ?? flag}>`;
  } else if (def.type === "string") label += ` <${def.valueHint ?? flag}>`;
  if (def.type !== "boolean" && def.default !== undefined && !/default/i.test(description))
    description += ` (default: ${def.default})`;
  return [label, description];
}

/** `coffer <command> --help`. */
export async function commandHelp(cmd: CommandDef<any>, name: string): Promise<string> {
  const meta = (await resolve(cmd.meta)) ?? {};
  const args = ((await resolve(cmd.args)) ?? {}) as Record<string, ArgDef>;
  const subs = (await resolve(cmd.subCommands)) as Record<string, Resolvable<CommandDef<any>>> | undefined;
  const positionals = Object.entries(args).filter(([, d]) => d.type === "positional");
  const options = Object.entries(args).filter(([, d]) => d.type !== "positional");
  const words = Boolean((cmd as CommandDef<any> & { [WORDS]?: boolean })[WORDS]);

  const usage = [name];
  if (subs) usage.push(cmd.default ? "[<command>]" : "<command>");
  if (options.length) usage.push("[options]");
  positionals.forEach(([n, d], i) => {
    const word = `<${n.toUpperCase()}>${words && i === positionals.length - 1 ? "..." : ""}`;
    usage.push(d.required === false ? `[${word}]` : word);
  });

  const out = [...wrap(meta.description ?? "", WIDTH), "", `USAGE  ${usage.join(" ")}`];
  if (subs) {
    const rows: [string, string][] = [];
    for (const [n, raw] of Object.entries(subs)) {
      const sub = (await resolve(raw)) as CommandDef<any>;
      const m = (await resolve(sub.meta)) ?? {};
      rows.push([n, `${m.description ?? ""}${cmd.default === n ? " (the default)" : ""}`]);
    }
    out.push("", "COMMANDS", ...columns(rows), "", `\`${name} <command> --help\` shows a command's options.`);
  }
  if (positionals.length) {
    out.push("", "ARGUMENTS");
    out.push(
      ...columns(
        positionals.map(([n, d]) => [
          `${n.toUpperCase()}${words && n === positionals.at(-1)![0] ? "..." : ""}`,
          `${d.description ?? ""}${d.required === false ? " (optional)" : ""}`,
        ]),
      ),
    );
  }
  if (options.length) out.push("", "OPTIONS", ...columns(options.map(([n, d]) => optionRow(n, d))));
  const examples = (cmd as WithExamples)[EXAMPLES];
  if (examples?.length) out.push("", "EXAMPLES", ...examples.map((e) => `  ${e}`));
  return out.join("\n");
}

type Listed = { description: string; hidden?: boolean };

/** `coffer --help`: the commands, then the flags every command understands. */
export function mainHelp(commands: Record<string, Listed>, version: string): string {
  const names = Object.entries(commands).filter(([, c]) => !c.hidden);
  return [
    `coffer ${version} — one shared, local-first memory for every coding agent`,
    "",
    "USAGE  coffer <command> [options]",
    "",
    "COMMANDS",
    ...columns(names.map(([n, c]) => [n, c.description])),
    "",
    "GLOBAL OPTIONS",
    ...columns([
      ["-h, --help", "Show help; `coffer <command> --help` (or `coffer help <command>`) for one command"],
      ["-v, --version", "Print the version and build target"],
      ["--json", "Machine-readable JSON instead of text, on every command that prints data"],
    ]),
    "",
    "Use `coffer <command> --help` for a command's options and examples.",
  ].join("\n");
}
