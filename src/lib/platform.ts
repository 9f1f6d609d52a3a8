/**
 * Platform facts, in one place: where home and config directories are on each OS, which path
 * flavour to use, how a hook command must be quoted for the shell a host runs it with, the
 * executable suffix, and how the hook watchdog ends the process. Every function takes the
 * platform and environment as arguments (defaulting to this process), so the Windows and macOS
 * branches are unit-tested on Linux. Imported by the hook path: node:path only (node:os, 0.3 ms to
 * load, only when no variable names the home directory, or for the machine's name).
 */
import path from "node:path";
import { isEmbedded } from "./embedded";

export type Platform = "linux" | "darwin" | "win32";
export type Env = Record<string, string | undefined>;

/**
 * This machine's name, "localhost" when the OS gives none (sync's commit identity and messages).
 * node:os is loaded here, on first use: `coffer status` reads sync's state without it.
 */
export function machineName(): string {
  return (require("node:os") as typeof import("node:os")).hostname() || "localhost";
}

/** The platform Coffer treats this process as (other Unixes behave like Linux). */
export function currentPlatform(p: string = process.platform): Platform {
  return p === "win32" || p === "darwin" ? p : "linux";
}

/** `node:path` for that platform (`path.win32` on Windows, `path.posix` elsewhere). */
export function pathFor(platform: Platform = currentPlatform()): typeof path.posix {
  return platform === "win32" ? path.win32 : path.posix;
}

/**
 * The user's home directory. `HOME` wins everywhere (tests and sandboxes move it; Git Bash
 * sets it on Windows too); on Windows then `USERPROFILE`, then `HOMEDRIVE` + `HOMEPATH`.
 */
export function homeDirFor(
  platform: Platform = currentPlatform(),
  env: Env = process.env,
  fallback = (): string => (require("node:os") as typeof import("node:os")).homedir(),
): string {
  if (env.HOME) return env.HOME;
  if (platform === "win32") {
    if (env.USERPROFILE) return env.USERPROFILE;
    if (env.HOMEDRIVE && env.HOMEPATH) return path.win32.join(env.HOMEDRIVE, env.HOMEPATH);
  }
  return fallback();
}

/**
 * Per-user application config root: `%APPDATA%` on Windows, `~/Library/Application Support`
 * on macOS, `$XDG_CONFIG_HOME` or `~/.config` on Linux.
 */
export function userConfigDir(platform: Platform = currentPlatform(), env: Env = process.env, home?: string): string {
  const p = pathFor(platform);
  const h = home ?? homeDirFor(platform, env);
  if (platform === "win32") return env.APPDATA || p.join(h, "AppData", "Roaming");
  if (platform === "darwin") return p.join(h, "Library", "Application Support");
  return env.XDG_CONFIG_HOME || p.join(h, ".config");
}

/**
 * The XDG-style config root that CLI agents use on every OS (OpenCode reads
 * `~/.config/opencode` on macOS and Windows too, not Application Support or APPDATA).
 */
export function xdgConfigDir(platform: Platform = currentPlatform(), env: Env = process.env, home?: string): string {
  return env.XDG_CONFIG_HOME || pathFor(platform).join(home ?? homeDirFor(platform, env), ".config");
}

/** Where the agents keep their user-level configs, per OS (all under home, as the agents document). */
export function hostConfigDirs(
  platform: Platform = currentPlatform(),
  env: Env = process.env,
  home?: string,
): Record<"claude" | "codex" | "gemini" | "cursor" | "windsurf" | "opencode" | "qwen", string> {
  const p = pathFor(platform);
  const h = home ?? homeDirFor(platform, env);
  return {
    claude: env.CLAUDE_CONFIG_DIR || p.join(h, ".claude"),
    codex: env.CODEX_HOME || p.join(h, ".codex"),
    gemini: p.join(h, ".gemini"),
    cursor: p.join(h, ".cursor"),
    windsurf: p.join(h, ".codeium", "windsurf"),
    opencode: p.join(xdgConfigDir(platform, env, h), "opencode"),
    // Qwen expands a leading `~/` in QWEN_HOME itself (its resolveQwenHome).
    qwen: env.QWEN_HOME?.startsWith("~/") ? p.join(h, env.QWEN_HOME.slice(2)) : env.QWEN_HOME || p.join(h, ".qwen"),
  };
}

/**
 * Claude Code's managed (enterprise) settings file: a system path that differs per OS and that
 * `link` never writes, but `doctor` may read to explain hooks it cannot override.
 */
export function claudeManagedSettings(platform: Platform = currentPlatform(), env: Env = process.env): string {
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (platform === "win32")
    return path.win32.join(
      env.ProgramData || env.PROGRAMDATA || "C:\\ProgramData",
      "ClaudeCode",
      "managed-settings.json",
    );
  return "/etc/claude-code/managed-settings.json";
}

/** `.exe` on Windows, nothing elsewhere. */
export function exeSuffix(platform: Platform = currentPlatform()): string {
  return platform === "win32" ? ".exe" : "";
}

/** The file name of the Coffer binary on that platform. */
export function binaryName(platform: Platform = currentPlatform()): string {
  return `coffer${exeSuffix(platform)}`;
}

/** True for `coffer` / `coffer.exe` (any case of `.exe`), the names Coffer recognises as itself. */
export function isCofferBinaryName(name: string): boolean {
  return name === "coffer" || name.toLowerCase() === "coffer.exe";
}

/** The base name of a path written by either flavour (a Windows path may reach a Linux doctor). */
export function baseNameAny(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

/**
 * The shell a host runs hook command strings with, per OS:
 * - `sh`: POSIX sh (every host on Linux and macOS).
 * - `bash-win`: Git Bash on Windows (Claude Code runs hooks through Git Bash, which it requires).
 *   Backslashes are escapes there, so paths are written with forward slashes, double-quoted.
 * - `powershell`: Codex, Gemini, Cursor and Windsurf on Windows run hooks in the session shell,
 *   PowerShell; a quoted program path needs the call operator `&`.
 */
export type HookShell = "sh" | "bash-win" | "powershell";

export function hookShellFor(host: string, platform: Platform = currentPlatform()): HookShell {
  if (platform !== "win32") return "sh";
  return host === "claude" ? "bash-win" : "powershell";
}

const SAFE_WORD = /^[A-Za-z0-9_/.,:@%+=-]+$/;

/** Quote one word so the given shell passes it through unchanged. */
export function quoteWord(word: string, shell: HookShell): string {
  if (shell === "sh") return SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
  if (shell === "bash-win") {
    const w = word.replaceAll("\\", "/");
    return SAFE_WORD.test(w) ? w : `"${w.replace(/(["$`\\])/g, "\\$1")}"`;
  }
  // PowerShell: backslashes are literal, so Windows paths stay as they are.
  return /^[A-Za-z0-9_/\\.,:@%+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "''")}'`;
}

/** A command line `<program> <args…>` for the shell: the program quoted, `&` before a quoted program in PowerShell. */
export function commandLine(program: string, args: string[], shell: HookShell): string {
  const prog = quoteWord(program, shell);
  const head = shell === "powershell" && prog.startsWith("'") ? `& ${prog}` : prog;
  return [head, ...args.map((a) => quoteWord(a, shell))].join(" ");
}

/**
 * Renaming over a file: atomic on every OS, but Windows refuses it for a moment (EPERM, EACCES,
 * EBUSY) while another process holds the target open without FILE_SHARE_DELETE (a virus
 * scanner, an indexer, an editor). There the rename is retried with these delays (~1.6 s in
 * all); on Unix a rename over an open file just works, so nothing is retried.
 */
export function renameRetry(platform: Platform = currentPlatform()): { codes: string[]; delaysMs: number[] } {
  return platform === "win32"
    ? { codes: ["EPERM", "EACCES", "EBUSY"], delaysMs: [5, 10, 20, 40, 80, 160, 320, 500, 500] }
    : { codes: [], delaysMs: [] };
}

/**
 * The words of a command line as the shell that runs it would split them (quotes honoured, no
 * expansion), at most `max`. A leading PowerShell call operator `&` is dropped. POSIX: backslash
 * escapes outside single quotes. Windows: backslashes are path separators (never written as
 * escapes there), `''` inside single quotes is a quote (PowerShell), and `\"` `\$` `` \` `` inside
 * double quotes are escapes (Git Bash).
 */
export function splitCommandLine(line: string, platform: Platform = currentPlatform(), max = Infinity): string[] {
  const win = platform === "win32";
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let i = 0;
  const text = line.replace(/^\s*&\s+/, "");
  while (i < text.length && words.length < max) {
    const ch = text[i]!;
    if (ch === "'") {
      let j = i + 1;
      for (;;) {
        const close = text.indexOf("'", j);
        if (close < 0) {
          cur += text.slice(j);
          j = text.length;
          break;
        }
        cur += text.slice(j, close);
        j = close + 1;
        if (win && text[j] === "'") {
          cur += "'";
          j++;
          continue;
        }
        break;
      }
      i = j;
      inWord = true;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && j + 1 < text.length && (win ? '"$`' : '"\\$`').includes(text[j + 1]!)) j++;
        cur += text[j];
        j++;
      }
      i = j + 1;
      inWord = true;
    } else if (ch === "\\" && !win && i + 1 < text.length) {
      cur += text[i + 1];
      i += 2;
      inWord = true;
    } else if (ch === " " || ch === "\t" || ch === "\n") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
      i++;
    } else {
      cur += ch;
      i++;
      inWord = true;
    }
  }
  if (inWord && words.length < max) words.push(cur);
  return words;
}

/**
 * How the hook watchdog ends the whole process from its worker thread, when the main thread is
 * stuck in a synchronous call. `process.exit` and `process.reallyExit` in a Bun worker end only
 * the worker, so the watchdog calls the C library through bun:ffi: `_exit(0)` on Linux (glibc
 * `libc.so.6`; musl's loader answers `libc.so.6`, `libc.so` and its own name with itself, checked
 * with a musl-gcc program) and macOS (`libSystem`), and
 * `TerminateProcess(GetCurrentProcess(), 0)` from kernel32 on Windows. The libraries are tried
 * in order; SIGKILL (status 137) is the last resort.
 */
export type ExitStrategy = { kind: "_exit"; libraries: string[] } | { kind: "TerminateProcess"; library: string };

export function watchdogExit(platform: Platform = currentPlatform()): ExitStrategy {
  if (platform === "win32") return { kind: "TerminateProcess", library: "kernel32.dll" };
  if (platform === "darwin") return { kind: "_exit", libraries: ["/usr/lib/libSystem.B.dylib", "libSystem.B.dylib"] };
  return { kind: "_exit", libraries: ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"] };
}

/**
 * The argv that runs this Coffer again: the compiled binary alone (its entry point lives inside
 * it, `/$bunfs/...`, `B:/~BUN/...` on Windows), or Bun with the entry script when run from source.
 */
export function selfCommand(main: string = Bun.main, execPath: string = process.execPath): string[] {
  return isEmbedded(main) ? [execPath] : [execPath, main];
}
