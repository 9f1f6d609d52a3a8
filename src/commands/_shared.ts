import type { ArgDef } from "citty";
import { consola } from "consola";
import { usageError } from "../lib/errors";
import { KINDS } from "../store/entry";
import { type OpenOptions, openStore, type Store } from "../store/store";

export { consola };

export const jsonArg = {
  json: { type: "boolean", description: "Print machine-readable JSON" },
} as const satisfies Record<string, ArgDef>;
export const scopeArg = {
  scope: { type: "enum", options: ["project", "global"] as string[], description: "project or global" },
} as const satisfies Record<string, ArgDef>;

/** --kind, checked against the entry kinds before the command runs. */
export const kindArg = {
  kind: { type: "enum", options: [...KINDS] as string[], description: KINDS.join(", ") },
} as const satisfies Record<string, ArgDef>;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Open the store for the current directory, with the CLI's freshness (every file compared). */
export function cliStore(opts: OpenOptions = {}): Store {
  return openStore({ freshness: "deep", ...opts });
}

export function parseLimit(raw: string | undefined, def: number, max: number): number {
  if (raw === undefined || raw === "") return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw usageError(`--limit must be an integer 1..${max} (got ${JSON.stringify(raw)})`);
  return n;
}

export function splitList(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Positional text: all words joined, or stdin when the only argument is "-". */
export async function textFromArgs(words: string[]): Promise<string> {
  if (words.length === 1 && words[0] === "-") return await Bun.stdin.text();
  return words.join(" ");
}

export function short(text: string, max = 100): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
