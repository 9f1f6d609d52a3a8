/** Platform facts per OS: the Windows and macOS branches run here on Linux through path.win32 and fake envs. */
import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import path, { join } from "node:path";
import {
  baseNameAny,
  binaryName,
  claudeManagedSettings,
  commandLine,
  currentPlatform,
  exeSuffix,
  homeDirFor,
  hookShellFor,
  hostConfigDirs,
  isCofferBinaryName,
  pathFor,
  quoteWord,
  renameRetry,
  splitCommandLine,
  userConfigDir,
  watchdogExit,
  xdgConfigDir,
} from "../../src/lib/platform";

const never = () => {
  throw new Error("os.homedir() must not be consulted when the environment names the home");
};

describe("home and config directories", () => {
  test("HOME wins on every OS (tests, sandboxes, Git Bash)", () => {
    expect(homeDirFor("linux", { HOME: "/h" }, never)).toBe("/h");
    expect(homeDirFor("win32", { HOME: "C:\\Users\\a", USERPROFILE: "D:\\x" }, never)).toBe("C:\\Users\\a");
  });

  test("Windows: USERPROFILE, then HOMEDRIVE+HOMEPATH, then os.homedir()", () => {
    expect(homeDirFor("win32", { USERPROFILE: "C:\\Users\\Ada Lovelace" }, never)).toBe("C:\\Users\\Ada Lovelace");
    expect(homeDirFor("win32", { HOMEDRIVE: "C:", HOMEPATH: "\\Users\\bob" }, never)).toBe("C:\\Users\\bob");
    expect(homeDirFor("win32", {}, () => "C:\\fallback")).toBe("C:\\fallback");
  });

  test("Linux/macOS without HOME fall back to os.homedir()", () => {
    expect(homeDirFor("darwin", {}, () => "/Users/ada")).toBe("/Users/ada");
  });

  test("user config root: APPDATA / Application Support / XDG", () => {
    expect(userConfigDir("win32", { APPDATA: "C:\\Users\\a\\AppData\\Roaming" }, "C:\\Users\\a")).toBe(
      "C:\\Users\\a\\AppData\\Roaming",
    );
    expect(userConfigDir("win32", {}, "C:\\Users\\a")).toBe("C:\\Users\\a\\AppData\\Roaming");
    expect(userConfigDir("darwin", {}, "/Users/ada")).toBe("/Users/ada/Library/Application Support");
    expect(userConfigDir("linux", {}, "/home/ada")).toBe("/home/ada/.config");
    expect(userConfigDir("linux", { XDG_CONFIG_HOME: "/x" }, "/home/ada")).toBe("/x");
  });

  test("agent config dirs live under home on every OS, joined with that OS's separator", () => {
    const win = hostConfigDirs("win32", {}, "C:\\Users\\Ada Lovelace");
    expect(win.claude).toBe("C:\\Users\\Ada Lovelace\\.claude");
    expect(win.codex).toBe("C:\\Users\\Ada Lovelace\\.codex");
    expect(win.windsurf).toBe("C:\\Users\\Ada Lovelace\\.codeium\\windsurf");
    expect(win.opencode).toBe("C:\\Users\\Ada Lovelace\\.config\\opencode");
    const mac = hostConfigDirs("darwin", {}, "/Users/ada");
    expect(mac.gemini).toBe("/Users/ada/.gemini");
    expect(mac.cursor).toBe("/Users/ada/.cursor");
    expect(mac.opencode).toBe("/Users/ada/.config/opencode");
    expect(hostConfigDirs("linux", { QWEN_HOME: "~/qw" }, "/h").qwen).toBe("/h/qw");
    expect(hostConfigDirs("linux", { CODEX_HOME: "/c", CLAUDE_CONFIG_DIR: "/k" }, "/h")).toMatchObject({
      codex: "/c",
      claude: "/k",
    });
    expect(xdgConfigDir("darwin", { XDG_CONFIG_HOME: "/xdg" }, "/Users/a")).toBe("/xdg");
  });

  test("Claude Code managed settings per OS", () => {
    expect(claudeManagedSettings("darwin")).toBe("/Library/Application Support/ClaudeCode/managed-settings.json");
    expect(claudeManagedSettings("linux")).toBe("/etc/claude-code/managed-settings.json");
    expect(claudeManagedSettings("win32", { ProgramData: "D:\\PD" })).toBe("D:\\PD\\ClaudeCode\\managed-settings.json");
  });

  test("path flavour, exe suffix and binary names", () => {
    expect(pathFor("win32")).toBe(path.win32);
    expect(pathFor("darwin")).toBe(path.posix);
    expect(currentPlatform("freebsd")).toBe("linux");
    expect(exeSuffix("win32")).toBe(".exe");
    expect(exeSuffix("darwin")).toBe("");
    expect(binaryName("win32")).toBe("coffer.exe");
    expect(isCofferBinaryName("coffer")).toBe(true);
    expect(isCofferBinaryName("coffer.exe")).toBe(true);
    expect(isCofferBinaryName("Coffer.EXE")).toBe(true); // Windows file names are case-insensitive
    expect(isCofferBinaryName("coffer-linux-x64")).toBe(false);
    expect(baseNameAny("C:\\Users\\a b\\.local\\bin\\coffer.exe")).toBe("coffer.exe");
    expect(baseNameAny("/usr/local/bin/coffer")).toBe("coffer");
  });
});

/** Run a command line through a real POSIX shell and return argv as the program sees it. */
function argvThroughSh(line: string): string[] {
  // Replace the program word with printf so the shell's word splitting is what we observe.
  const p = Bun.spawnSync(["sh", "-c", `set -- ${line}; for a in "$@"; do printf '%s\\0' "$a"; done`]);
  return p.stdout.toString().split("\0").slice(0, -1);
}

describe("hook command quoting per host shell", () => {
  test("which shell runs hooks: sh on Unix; Git Bash for Claude and PowerShell for the rest on Windows", () => {
    expect(hookShellFor("claude", "darwin")).toBe("sh");
    expect(hookShellFor("codex", "linux")).toBe("sh");
    expect(hookShellFor("claude", "win32")).toBe("bash-win");
    expect(hookShellFor("codex", "win32")).toBe("powershell");
    expect(hookShellFor("gemini", "win32")).toBe("powershell");
  });

  test("POSIX: a path with spaces and quotes survives sh word splitting", () => {
    const bin = "/Users/Ada Lovelace/it's here/coffer";
    const line = commandLine(bin, ["hook", "session-start", "--agent", "claude"], "sh");
    expect(argvThroughSh(line)).toEqual([bin, "hook", "session-start", "--agent", "claude"]);
    expect(commandLine("/usr/local/bin/coffer", ["hook", "prompt"], "sh")).toBe("/usr/local/bin/coffer hook prompt");
  });

  test("Windows + Git Bash: forward slashes, double quotes; bash reads the same path back", () => {
    const bin = "C:\\Users\\Ada Lovelace\\.local\\bin\\coffer.exe";
    const line = commandLine(bin, ["hook", "session-start", "--agent", "claude"], "bash-win");
    expect(line).toBe('"C:/Users/Ada Lovelace/.local/bin/coffer.exe" hook session-start --agent claude');
    expect(argvThroughSh(line)).toEqual([
      "C:/Users/Ada Lovelace/.local/bin/coffer.exe",
      "hook",
      "session-start",
      "--agent",
      "claude",
    ]);
    // No spaces: bare forward-slash path (runs under Git Bash, PowerShell and cmd alike).
    expect(commandLine("C:\\tools\\coffer.exe", ["hook"], "bash-win")).toBe("C:/tools/coffer.exe hook");
    // $ and backquotes stay literal inside the double quotes.
    expect(argvThroughSh(quoteWord("C:\\a $HOME `x`\\c", "bash-win"))).toEqual(["C:/a $HOME `x`/c"]);
  });

  test("Windows + PowerShell: single quotes ('' escapes) and the call operator before a quoted program", () => {
    const bin = "C:\\Users\\Ada O'Brien\\.local\\bin\\coffer.exe";
    expect(commandLine(bin, ["hook", "prompt", "--agent", "codex"], "powershell")).toBe(
      "& 'C:\\Users\\Ada O''Brien\\.local\\bin\\coffer.exe' hook prompt --agent codex",
    );
    expect(commandLine("C:\\tools\\coffer.exe", ["hook"], "powershell")).toBe("C:\\tools\\coffer.exe hook");
  });
});

describe("reading a hook command back (how link recognises its own entries)", () => {
  const args = ["hook", "session-start", "--agent", "claude"];
  test("every quoting round-trips through the splitter of that platform", () => {
    for (const bin of ["/usr/local/bin/coffer", "/Users/Ada Lovelace/it's $here/coffer"]) {
      expect(splitCommandLine(commandLine(bin, args, "sh"), "linux")).toEqual([bin, ...args]);
      expect(splitCommandLine(commandLine(bin, args, "sh"), "darwin")).toEqual([bin, ...args]);
    }
    for (const bin of [
      "C:\\tools\\coffer.exe",
      "C:\\Users\\Ada O'Brien\\.local\\bin\\coffer.exe",
      "D:\\a $b `c`\\coffer.exe",
    ]) {
      expect(splitCommandLine(commandLine(bin, args, "powershell"), "win32")).toEqual([bin, ...args]);
      expect(splitCommandLine(commandLine(bin, args, "bash-win"), "win32")).toEqual([
        bin.replaceAll("\\", "/"),
        ...args,
      ]);
    }
  });

  test("max words, and POSIX backslash escapes", () => {
    expect(splitCommandLine("/a\\ b/coffer hook prompt", "linux", 2)).toEqual(["/a b/coffer", "hook"]);
    expect(splitCommandLine('"/x y/coffer" hook', "linux", 1)).toEqual(["/x y/coffer"]);
    expect(splitCommandLine("C:\\tools\\coffer.exe hook", "win32", 2)).toEqual(["C:\\tools\\coffer.exe", "hook"]);
  });
});

describe("watchdog exit strategy", () => {
  test("no glibc-only library: musl and macOS have their own, Windows uses kernel32", () => {
    const linux = watchdogExit("linux");
    expect(linux.kind).toBe("_exit");
    expect(linux.kind === "_exit" && linux.libraries).toContain("libc.so");
    const mac = watchdogExit("darwin");
    expect(mac.kind === "_exit" && mac.libraries[0]).toBe("/usr/lib/libSystem.B.dylib");
    expect(watchdogExit("win32")).toEqual({ kind: "TerminateProcess", library: "kernel32.dll" });
  });

  test("each Linux candidate that exists here really exports _exit (dlopen through bun:ffi)", () => {
    const { dlopen, FFIType } = require("bun:ffi");
    const strategy = watchdogExit("linux");
    if (strategy.kind !== "_exit") throw new Error("unexpected");
    let opened = 0;
    for (const lib of strategy.libraries) {
      try {
        const h = dlopen(lib, { _exit: { args: [FFIType.i32], returns: FFIType.void } });
        expect(typeof h.symbols._exit).toBe("function");
        h.close();
        opened++;
      } catch {}
    }
    expect(opened).toBeGreaterThan(0);
  });
});

describe("atomic rename over a busy file", () => {
  const { renameOver } = require("../../src/lib/atomic") as typeof import("../../src/lib/atomic");
  const busy = (failures: number, code = "EPERM") => {
    const calls: string[] = [];
    const rename = (from: string, to: string) => {
      calls.push(`${from}->${to}`);
      if (calls.length <= failures) throw Object.assign(new Error(`${code}: busy`), { code });
    };
    return { calls, rename };
  };

  test("Windows: EPERM/EACCES/EBUSY while another process holds the target are retried until the rename goes through", () => {
    const b = busy(3, "EBUSY");
    renameOver("a.tmp", "a", renameRetry("win32"), b.rename);
    expect(b.calls).toHaveLength(4);
  });

  test("Windows: a file that stays busy fails after the retries; another error fails at once", () => {
    const stuck = busy(100);
    expect(() => renameOver("a.tmp", "a", renameRetry("win32"), stuck.rename)).toThrow("EPERM");
    expect(stuck.calls).toHaveLength(renameRetry("win32").delaysMs.length + 1);
    const gone = busy(1, "ENOENT");
    expect(() => renameOver("a.tmp", "a", renameRetry("win32"), gone.rename)).toThrow("ENOENT");
    expect(gone.calls).toHaveLength(1);
  });

  test("Unix: no retries (a rename over an open file succeeds; a real one here proves it)", () => {
    const b = busy(1);
    expect(() => renameOver("a.tmp", "a", renameRetry("linux"), b.rename)).toThrow("EPERM");
    expect(b.calls).toHaveLength(1);
    const { mkdtempSync, openSync, closeSync, readFileSync, writeFileSync, rmSync } = require("node:fs");
    const dir = mkdtempSync(join(tmpdir(), "coffer-rename-"));
    try {
      writeFileSync(join(dir, "t"), "old");
      const fd = openSync(join(dir, "t"), "r");
      writeFileSync(join(dir, "t.tmp"), "new");
      renameOver(join(dir, "t.tmp"), join(dir, "t"));
      closeSync(fd);
      expect(readFileSync(join(dir, "t"), "utf8")).toBe("new");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
