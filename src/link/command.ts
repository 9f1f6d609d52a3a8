/**
 * The command strings Coffer writes into agents' configs, and how Coffer recognises its own
 * entries again: the first word's basename is `coffer` and the second word is `hook`.
 */
import { basename } from "node:path";
import type { HookEvent } from "../hosts/hook";

const SAFE = /^[A-Za-z0-9_/.,:@%+=-]+$/;

/** Quote one word for POSIX sh (the hosts run hook commands through a shell). */
export function shellQuote(word: string): string {
  return SAFE.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `<abs binary> hook <event> --agent <host>` */
export function hookCommand(bin: string, event: HookEvent, host: string): string {
  return `${shellQuote(bin)} hook ${event} --agent ${host}`;
}

/** The first `max` shell words of a command line (quotes and backslashes honoured, no expansion). */
export function shellWords(command: string, max = 3): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let i = 0;
  while (i < command.length && words.length < max) {
    const ch = command[i]!;
    if (ch === "'") {
      const close = command.indexOf("'", i + 1);
      cur += command.slice(i + 1, close < 0 ? command.length : close);
      i = close < 0 ? command.length : close + 1;
      inWord = true;
    } else if (ch === '"') {
      let j = i + 1;
      while (j < command.length && command[j] !== '"') {
        if (command[j] === "\\" && j + 1 < command.length && '"\\$`'.includes(command[j + 1]!)) j++;
        cur += command[j];
        j++;
      }
      i = j + 1;
      inWord = true;
    } else if (ch === "\\" && i + 1 < command.length) {
      cur += command[i + 1];
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

/** True for a path whose file name is `coffer` (the binary Coffer's entries point at). */
export function isCofferBinaryPath(path: unknown): path is string {
  return typeof path === "string" && basename(path) === "coffer";
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
