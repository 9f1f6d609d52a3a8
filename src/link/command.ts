/**
 * The command strings Coffer writes into agents' configs, and how Coffer recognises its own
 * entries again: the first word's basename is `coffer` (or `coffer.exe`) and the second word is `hook`.
 */
import type { HookEvent } from "../hosts/hook";
import {
  baseNameAny,
  commandLine,
  currentPlatform,
  hookShellFor,
  isCofferBinaryName,
  quoteWord,
  splitCommandLine,
} from "../lib/platform";

/** Quote one word for POSIX sh. */
export function shellQuote(word: string): string {
  return quoteWord(word, "sh");
}

/**
 * `<abs binary> hook <event> --agent <host>`, quoted for the shell that host runs hooks with on
 * this OS (POSIX sh; on Windows Git Bash for Claude Code, PowerShell for the others).
 */
export function hookCommand(bin: string, event: HookEvent, host: string): string {
  return commandLine(bin, ["hook", event, "--agent", host], hookShellFor(host));
}

/** The first `max` words of a command line as this OS's hook shells split them (no expansion). */
export function shellWords(command: string, max = 3): string[] {
  return splitCommandLine(command, currentPlatform(), max);
}

/** True for a path whose file name is `coffer` (`coffer.exe` on Windows): the binary Coffer's entries point at. */
export function isCofferBinaryPath(path: unknown): path is string {
  return typeof path === "string" && isCofferBinaryName(baseNameAny(path));
}

/** A hook command Coffer manages: `…/coffer hook …`. */
export function isManagedHookCommand(command: unknown): command is string {
  if (typeof command !== "string") return false;
  const [first, second] = shellWords(command, 2);
  return isCofferBinaryPath(first) && second === "hook";
}

/** The binary a managed command runs (first word), for doctor. */
export function commandBinary(command: string): string | undefined {
  return shellWords(command, 1)[0];
}
