/**
 * Strict argument checking for every citty command, from the args each command declares: an
 * unknown option, a missing option value, an extra positional, an unknown sub-command or an enum
 * value outside its options is a usage error (exit 2) raised before the command runs, so a typo
 * never reaches memory. citty itself is lenient (unknown flags are dropped, extra words kept).
 */
import type { ArgDef, CommandDef } from "citty";
import { didYouMean } from "../lib/did-you-mean";
import { usageError } from "../lib/errors";

/** Marks a command whose last positional takes every remaining word (`coffer remember some text`). */
export const WORDS = Symbol.for("coffer.words");
export function takesWords<T extends CommandDef<any>>(cmd: T): T {
  (cmd as T & { [WORDS]?: boolean })[WORDS] = true;
  return cmd;
}

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolve = async <T>(v: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof v === "function" ? await (v as () => T | Promise<T>)() : await v;

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
const camel = (s: string) => s.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type Option = { name: string; def: ArgDef };

function optionTable(args: Record<string, ArgDef>): { long: Map<string, Option>; short: Map<string, Option> } {
  const long = new Map<string, Option>();
  const short = new Map<string, Option>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const opt = { name, def };
    for (const n of [name, kebab(name), camel(name)]) long.set(n, opt);
    const aliases = "alias" in def && def.alias ? (Array.isArray(def.alias) ? def.alias : [def.alias]) : [];
    for (const a of aliases) (a.length === 1 ? short : long).set(a, opt);
  }
  return { long, short };
}

const takesValue = (def: ArgDef) => def.type === "string" || def.type === "enum";

function checkEnum(opt: Option, value: string, where: string): void {
  if (opt.def.type !== "enum" || !opt.def.options?.length) return;
  if (opt.def.options.includes(value)) return;
  const guess = didYouMean(value, opt.def.options);
  throw usageError(
    `${where}: unknown ${opt.name} ${JSON.stringify(value)} (allowed: ${opt.def.options.join(", ")})`,
    guess ? `Did you mean --${opt.name} ${guess}?` : `Run \`${where} --help\` for usage.`,
  );
}

/** Check a leaf command's argv against its declared args. */
function checkLeaf(args: Record<string, ArgDef>, argv: string[], where: string, words: boolean): void {
  const { long, short } = optionTable(args);
  const positionals = Object.values(args).filter((d) => d.type === "positional").length;
  const names = [...new Set([...long.values()].map((o) => kebab(o.name)))];
  const booleans = [...long.values()].filter((o) => o.def.type === "boolean").map((o) => kebab(o.name));
  let seen = 0;
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (!rest && tok === "--") {
      rest = true;
      continue;
    }
    if (!rest && tok.startsWith("--")) {
      const eq = tok.indexOf("=");
      const name = tok.slice(2, eq < 0 ? undefined : eq);
      const negated = name.startsWith("no-") ? long.get(name.slice(3)) : undefined;
      if (negated?.def.type === "boolean" && eq < 0) continue;
      const opt = long.get(name);
      if (!opt) {
        const guess = didYouMean(name, [...names, ...booleans.map((b) => `no-${b}`)]);
        throw usageError(
          `${where}: unknown option --${name}`,
          guess
            ? `Did you mean --${guess}? (\`${where} --help\` lists the options)`
            : `Run \`${where} --help\` for usage.`,
        );
      }
      if (!takesValue(opt.def)) continue;
      if (eq >= 0) {
        checkEnum(opt, tok.slice(eq + 1), where);
        continue;
      }
      if (i + 1 >= argv.length) throw usageError(`${where}: --${name} needs a value`, `Run \`${where} --help\`.`);
      checkEnum(opt, argv[++i]!, where);
      continue;
    }
    if (!rest && tok.startsWith("-") && tok.length > 1) {
      const letters = tok.slice(1);
      for (let k = 0; k < letters.length; k++) {
        const opt = short.get(letters[k]!);
        if (!opt) {
          throw usageError(
            `${where}: unknown option ${tok}`,
            `Options start with two dashes (--name); text that starts with "-" goes after --. Run \`${where} --help\`.`,
          );
        }
        if (takesValue(opt.def) && k === letters.length - 1) {
          if (i + 1 >= argv.length) throw usageError(`${where}: -${letters[k]} needs a value`);
          checkEnum(opt, argv[++i]!, where);
        }
      }
      continue;
    }
    seen++;
    if (seen > positionals && !(words && positionals > 0)) {
      throw usageError(
        `${where}: unexpected argument ${JSON.stringify(tok)}`,
        positionals
          ? `It takes ${positionals} argument${positionals === 1 ? "" : "s"}; quote text that has spaces. Run \`${where} --help\`.`
          : `It takes no arguments. Run \`${where} --help\`.`,
      );
    }
  }
}

/**
 * Walk argv down a command's sub-commands the way citty does, and check the command that will
 * run. Throws a usage error (exit 2) naming the problem and, when there is one, a did-you-mean.
 * Returns argv with the default sub-command named, so `coffer rules --scope global` runs
 * `rules show --scope global` (citty alone would read "global" as a sub-command).
 */
export async function checkArgv(cmd: CommandDef<any>, argv: string[], where: string): Promise<string[]> {
  const args = ((await resolve(cmd.args)) ?? {}) as Record<string, ArgDef>;
  const subs = (await resolve(cmd.subCommands)) as Record<string, Resolvable<CommandDef<any>>> | undefined;
  if (subs && Object.keys(subs).length) {
    const fallback = await resolve(cmd.default);
    const fallbackCmd =
      fallback && Object.hasOwn(subs, fallback) ? ((await resolve(subs[fallback])) as CommandDef<any>) : undefined;
    // Options of the default sub-command may come first; their values are not sub-command names.
    const valued = optionTable({
      ...(((await resolve(fallbackCmd?.args)) ?? {}) as Record<string, ArgDef>),
      ...args,
    }).long;
    let idx = -1;
    for (let i = 0; i < argv.length; i++) {
      const tok = argv[i]!;
      if (tok === "--") break;
      if (tok.startsWith("-")) {
        const opt = valued.get(tok.replace(/^-+/, ""));
        if (opt && takesValue(opt.def) && !tok.includes("=")) i++;
        continue;
      }
      idx = i;
      break;
    }
    if (idx >= 0) {
      const name = argv[idx]!;
      const guess = Object.hasOwn(subs, name) ? undefined : didYouMean(name, Object.keys(subs));
      const fallbackTakesWord = Object.values(
        ((await resolve(fallbackCmd?.args)) ?? {}) as Record<string, ArgDef>,
      ).some((d) => d.type === "positional");
      // `coffer config hook.read` = `coffer config get hook.read`: a word that is no sub-command's name
      // (nor close to one) goes to the default sub-command when that takes words.
      if (!Object.hasOwn(subs, name) && !guess && fallbackCmd && fallbackTakesWord)
        return [fallback!, ...(await checkArgv(fallbackCmd, argv, `${where} ${fallback}`))];
      if (!Object.hasOwn(subs, name)) {
        throw usageError(
          `${where}: unknown sub-command ${JSON.stringify(name)} (one of: ${Object.keys(subs).join(", ")})`,
          guess ? `Did you mean \`${where} ${guess}\`?` : `Run \`${where} --help\` for usage.`,
        );
      }
      const sub = (await resolve(subs[name])) as CommandDef<any>;
      // Options written before the sub-command's name belong to it (`coffer rules --scope global add x`).
      const before = Object.keys(args).length ? [] : argv.slice(0, idx);
      if (before.length === 0) checkLeaf(args, argv.slice(0, idx), where, false);
      const own = Object.keys(args).length ? argv.slice(0, idx) : [];
      return [...own, name, ...(await checkArgv(sub, [...before, ...argv.slice(idx + 1)], `${where} ${name}`))];
    }
    if (fallbackCmd) return [fallback!, ...(await checkArgv(fallbackCmd, argv, `${where} ${fallback}`))];
    if (!cmd.run) {
      checkLeaf(args, argv, where, false);
      throw usageError(
        `${where} needs a sub-command: ${Object.keys(subs).join(", ")}`,
        `Run \`${where} --help\` for usage.`,
      );
    }
  }
  checkLeaf(args, argv, where, Boolean((cmd as { [WORDS]?: boolean })[WORDS]));
  return argv;
}
