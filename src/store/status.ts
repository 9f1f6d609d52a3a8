/** What `coffer status` shows: per scope entries, rules, bytes and last update; the index file. */
import { statSync } from "node:fs";
import { join } from "node:path";
import { cofferHome, paths } from "../lib/paths";
import { dbOf } from "./db";
import { readMemoryFile, scopesOnDisk } from "./indexer";
import { readRules } from "./rules";
import { GLOBAL, TEAM_FOLDER } from "./scope";
import { entryCount, type Store, withHealing } from "./store";

export type ScopeStatus = {
  scope: string;
  label: string;
  entries: number;
  rules: number;
  bytes: number;
  last_updated: string | null;
};

function projectLabel(id: string): string {
  try {
    const text = readMemoryFile(join(paths.projectScope(id), "project.md")).text;
    const m = /^label:\s*(.+)$/m.exec(text);
    if (m) return JSON.parse(m[1]!.trim().startsWith('"') ? m[1]!.trim() : JSON.stringify(m[1]!.trim()));
  } catch {}
  return id;
}

export function storeStatus(store: Store): {
  home: string;
  scopes: ScopeStatus[];
  index: { file: string; bytes: number; entries: number };
} {
  const team = store.team?.present ? [store.team.key] : [];
  const scopes = [...scopesOnDisk(), ...team].map((scope) => {
    const row = withHealing(store, () =>
      // One row of the triggers' counts and one step down the (scope, updated) index: the same at any size.
      ({
        ...((dbOf(store).query("SELECT n, bytes FROM scope_counts WHERE scope = ?").get(scope) as {
          n: number;
          bytes: number;
        } | null) ?? { n: 0, bytes: 0 }),
        ...(dbOf(store).query("SELECT max(updated) AS last FROM entries WHERE scope = ?").get(scope) as {
          last: string | null;
        }),
      }),
    );
    // Sizes as the index holds them (the command's freshness check brought it up to date): no stat per file.
    const bytes = row.bytes;
    const rules = readRules(scope)
      .split("\n")
      .filter((l) => /^\s*[-*]\s+\S/.test(l)).length;
    const isTeam = scope === store.team?.key;
    return {
      scope: scope === GLOBAL ? "global" : isTeam ? "team" : scope,
      label: scope === GLOBAL ? "global" : isTeam ? `team ${store.team!.label} (${TEAM_FOLDER}/)` : projectLabel(scope),
      entries: row.n,
      rules,
      bytes,
      last_updated: row.last,
    };
  });
  let dbBytes = 0;
  try {
    dbBytes = statSync(paths.indexDb()).size;
  } catch {}
  const total = entryCount(store);
  return {
    home: cofferHome(),
    scopes,
    index: { file: paths.indexDb(), bytes: dbBytes, entries: total },
  };
}
