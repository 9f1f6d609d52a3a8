/**
 * One git setting as git itself would read it, from the config files alone (for when git cannot
 * be asked): system, global (XDG, then ~/.gitconfig, or GIT_CONFIG_GLOBAL), the repository's
 * config, its config.worktree, then GIT_CONFIG_COUNT/KEY_n/VALUE_n; `[include]` and
 * `[includeIf "gitdir:…"|"gitdir/i:…"|"onbranch:…"]` followed where they stand. The last value wins.
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readSmallText } from "./small-file";

/** Where a value was set: git's scope name and the file (or "command line"). */
export type GitConfigValue = {
  value: string;
  scope: "system" | "global" | "local" | "worktree" | "command";
  origin: string;
};

type Line = { section: string; key: string; value: string };

/** The `section.sub.key = value` lines of one config file's text, values unquoted and unescaped. */
export function parseGitConfig(text: string): Line[] {
  const out: Line[] = [];
  let section = "";
  let i = 0;
  const n = text.length;
  const skipLine = () => {
    while (i < n && text[i] !== "\n") i++;
    i++;
  };
  while (i < n) {
    while (i < n && /[ \t\r\n]/.test(text[i]!)) i++;
    if (i >= n) break;
    const c = text[i]!;
    if (c === "#" || c === ";") {
      skipLine();
      continue;
    }
    if (c === "[") {
      const end = text.indexOf("]", i);
      if (end < 0) break;
      const head = text.slice(i + 1, end).trim();
      const sub = /^([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"$/.exec(head);
      if (sub) section = `${sub[1]!.toLowerCase()}.${sub[2]!.replace(/\\(.)/g, "$1")}`;
      else {
        // `[section.sub]`: the old form, its subsection lowercased
        section = head.toLowerCase();
      }
      i = end + 1;
      continue;
    }
    const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(i, i + 256));
    if (!name) {
      skipLine();
      continue;
    }
    i += name[0].length;
    while (i < n && (text[i] === " " || text[i] === "\t")) i++;
    let value = "true"; // `key` alone is a boolean true
    if (text[i] === "=") {
      i++;
      let v = "";
      let quoted = false;
      let pending = ""; // whitespace kept only when something follows it
      while (i < n) {
        const ch = text[i]!;
        if (ch === "\n" || (ch === "\r" && text[i + 1] === "\n")) break;
        if (!quoted && (ch === "#" || ch === ";")) {
          while (i < n && text[i] !== "\n") i++;
          break;
        }
        if (ch === "\\") {
          const next = text[i + 1];
          i += 2;
          if (next === "\n") continue; // a continued line
          if (next === "\r" && text[i] === "\n") {
            i++;
            continue;
          }
          v += pending + (next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : (next ?? ""));
          pending = "";
          continue;
        }
        i++;
        if (ch === '"') {
          quoted = !quoted;
          v += pending;
          pending = "";
          continue;
        }
        if (!quoted && (ch === " " || ch === "\t")) {
          if (v) pending += ch;
          continue;
        }
        v += pending + ch;
        pending = "";
      }
      value = v;
    }
    if (section) out.push({ section, key: name[0].toLowerCase(), value });
    skipLine();
  }
  return out;
}

/** `~/x` with the home folder. */
function expandHome(p: string, home: string | undefined): string {
  return home && (p === "~" || p.startsWith("~/")) ? join(home, p.slice(1)) : p;
}

/** A glob of includeIf as git matches it (`**` crosses folders, `*` does not). */
function globMatches(pattern: string, path: string, fold: boolean): boolean {
  const p = fold ? pattern.toLowerCase() : pattern;
  const s = fold ? path.toLowerCase() : path;
  return new Bun.Glob(p).match(s);
}

type Context = { gitDir?: string; branch?: string; home?: string };

/** Whether an includeIf condition holds for this repository. */
function conditionHolds(cond: string, file: string, ctx: Context): boolean {
  const m = /^(gitdir|gitdir\/i|onbranch):(.*)$/.exec(cond);
  if (!m) return false; // hasconfig: and conditions this reader does not know
  const [, kind, raw] = m;
  let pat = raw!;
  if (kind === "onbranch") {
    if (!ctx.branch) return false;
    if (pat.endsWith("/")) pat += "**";
    return globMatches(pat, ctx.branch, false);
  }
  if (!ctx.gitDir) return false;
  if (pat.startsWith("./")) pat = join(dirname(file), pat.slice(2));
  else pat = expandHome(pat, ctx.home);
  if (!isAbsolute(pat)) pat = `**/${pat}`;
  if (pat.endsWith("/")) pat += "**";
  const fold = kind === "gitdir/i";
  const dirs = [ctx.gitDir];
  try {
    dirs.push(realpathSync(ctx.gitDir));
  } catch {}
  return dirs.some((d) => globMatches(pat, d, fold));
}

/** A variable's name as git compares it: section and key in lower case, a subsection as written. */
function canonical(name: string): string {
  const first = name.indexOf(".");
  const last = name.lastIndexOf(".");
  if (first < 0) return name.toLowerCase();
  const sub = first === last ? "" : name.slice(first, last);
  return `${name.slice(0, first).toLowerCase()}${sub}.${name.slice(last + 1).toLowerCase()}`;
}

/**
 * Every value of `name` (`section.key`, or `section.sub.key`) in one file and the files it
 * includes, in order, appended to `out`.
 */
function collect(
  file: string,
  name: string,
  scope: GitConfigValue["scope"],
  ctx: Context,
  out: GitConfigValue[],
  depth = 0,
): void {
  if (depth > 10) return; // git stops at 10 nested includes too
  const text = readSmallText(file, 4 * 1024 * 1024);
  if (text === undefined) return;
  const want = canonical(name);
  for (const line of parseGitConfig(text)) {
    if (line.key === "path" && (line.section === "include" || line.section.startsWith("includeif."))) {
      if (line.section !== "include" && !conditionHolds(line.section.slice("includeif.".length), file, ctx)) continue;
      const target = expandHome(line.value, ctx.home);
      collect(isAbsolute(target) ? target : resolve(dirname(file), target), name, scope, ctx, out, depth + 1);
      continue;
    }
    if (`${line.section}.${line.key}` === want) out.push({ value: line.value, scope, origin: file });
  }
}

/**
 * The value of `name` git would use in the repository whose git dir is `gitDir` (its common dir
 * `commonDir`), or undefined when no file sets it. `env` is the environment git would run with.
 */
export function gitConfigValue(
  name: string,
  repo: { gitDir: string; commonDir: string },
  env: Record<string, string | undefined> = process.env,
): GitConfigValue | undefined {
  const home = env.HOME || undefined;
  const head = readSmallText(join(repo.gitDir, "HEAD"))?.trim() ?? "";
  const branch = /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1];
  const ctx: Context = { gitDir: repo.gitDir, branch, home };
  const out: GitConfigValue[] = [];
  const yes = (v: string | undefined) => !!v && /^(1|true|yes|on)$/i.test(v);
  if (!yes(env.GIT_CONFIG_NOSYSTEM)) collect(env.GIT_CONFIG_SYSTEM || "/etc/gitconfig", name, "system", ctx, out);
  if (env.GIT_CONFIG_GLOBAL) collect(expandHome(env.GIT_CONFIG_GLOBAL, home), name, "global", ctx, out);
  else {
    const xdg = env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined);
    if (xdg) collect(join(xdg, "git", "config"), name, "global", ctx, out);
    if (home) collect(join(home, ".gitconfig"), name, "global", ctx, out);
  }
  const local = join(repo.commonDir, "config");
  collect(local, name, "local", ctx, out);
  const probe: GitConfigValue[] = [];
  collect(local, "extensions.worktreeConfig", "local", ctx, probe);
  if (yes(probe.at(-1)?.value)) collect(join(repo.gitDir, "config.worktree"), name, "worktree", ctx, out);
  const count = Number(env.GIT_CONFIG_COUNT ?? 0);
  for (let k = 0; Number.isInteger(count) && k < Math.min(count, 1000); k++) {
    const key = env[`GIT_CONFIG_KEY_${k}`];
    if (key && canonical(key) === canonical(name))
      out.push({ value: env[`GIT_CONFIG_VALUE_${k}`] ?? "", scope: "command", origin: "command line" });
  }
  return out.at(-1);
}
