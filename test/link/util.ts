/** Helpers for the link tests: fixtures, a structural "minus Coffer" view, an insertion-only check. */
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";

export const FIXTURES = join(import.meta.dir, "fixtures");
export const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

export function read(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === "object" && !Array.isArray(v);

export function isCofferHook(cmd: unknown): boolean {
  if (typeof cmd !== "string") return false;
  const m = /^(?:'([^']*)'|(\S+))\s+hook\b/.exec(cmd);
  return !!m && basename(m[1] ?? m[2]!) === "coffer";
}

export function parseAny(text: string, kind: "json" | "toml"): any {
  return kind === "toml" ? parseToml(text) : parseJsonc(text, [], { allowTrailingComma: true });
}

/**
 * The document with Coffer's additions taken out: managed hooks (and the groups/events they
 * alone filled), `mcp.coffer` / `mcpServers.coffer` / `mcp_servers.coffer`, and containers
 * that were not in `original`.
 */
export function withoutCoffer(value: any, original: any): any {
  const v = structuredClone(value);
  if (isObj(v.hooks)) {
    for (const [event, list] of Object.entries(v.hooks)) {
      if (!Array.isArray(list)) continue;
      const kept = list
        .map((item: any) => {
          if (isObj(item) && Array.isArray(item.hooks)) {
            const hooks = item.hooks.filter((h: any) => !isCofferHook(h?.command));
            return hooks.length ? { ...item, hooks } : undefined;
          }
          return isCofferHook(item?.command) ? undefined : item;
        })
        .filter((x: unknown) => x !== undefined);
      if (kept.length || original?.hooks?.[event] !== undefined) v.hooks[event] = kept;
      else delete v.hooks[event];
    }
    if (!Object.keys(v.hooks).length && original?.hooks === undefined) delete v.hooks;
  }
  for (const key of ["mcpServers", "mcp", "mcp_servers"]) {
    if (isObj(v[key])) {
      delete v[key].coffer;
      if (!Object.keys(v[key]).length && original?.[key] === undefined) delete v[key];
    }
  }
  return v;
}

function lcs(a: string[], b: string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const dp = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * Every line of `before` is still in `after`, unchanged — except that a line may have gained
 * the one comma a JSON member needs before an appended sibling. Returns the added lines.
 */
export function expectOnlyAdditions(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const pairs = lcs(a, b);
  const matchedA = new Set(pairs.map((p) => p[0]));
  const matchedB = new Set(pairs.map((p) => p[1]));
  const added = b.filter((_, j) => !matchedB.has(j));
  for (let i = 0; i < a.length; i++) {
    if (matchedA.has(i)) continue;
    const line = a[i]!;
    const m = /^(.*?)(\s+\/\/[^"]*)?$/.exec(line)!;
    const withComma = `${m[1]},${m[2] ?? ""}`;
    expect(added).toContain(withComma);
    added.splice(added.indexOf(withComma), 1);
  }
  return added;
}
