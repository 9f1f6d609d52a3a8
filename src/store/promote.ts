/**
 * `coffer promote <id>`: a personal entry (this project's, or global) moves into the repository's
 * team lane, `.coffer/entries/<id>.md`, same id, to be committed and reviewed like code. Scrubbed
 * and stripped of personal fields on the way (entries.ts writeEntryFile, team.ts); the personal copy
 * goes to the trash (restorable for 30 days). Coffer never stages or commits the new file.
 */
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isoNow } from "../lib/time";
import { audit, scrubFields } from "../scrub/write";
import { dbOf } from "./db";
import { requireEntry, writeEntryFile } from "./entries";
import { normHash } from "./entry";
import { entryPath, refreshScope, removeDeadTemps } from "./indexer";
import { GLOBAL } from "./scope";
import { requireTeam, type Store, withHealing } from "./store";
import { teamLaneFolders } from "./tidy";
import { moveToTrash } from "./trash";

export type PromoteResult = {
  id: string;
  /** The scope it left. */
  from: "project" | "global";
  /** promoted: written into the team lane; duplicate: the team lane already said the same (its id). */
  status: "promoted" | "duplicate";
  team_id: string;
  file: string;
  scrubbed?: string;
};

export function promote(store: Store, id: string, actor: string): PromoteResult {
  const team = requireTeam(store);
  const personal = [store.project!.id, GLOBAL];
  const hit = requireEntry(store, id, { scopes: [...personal, team.key] });
  if (hit.scope === team.key)
    throw new CofferError(`${handle(hit.entry.id)} is already in the team lane`, 1, "Commit .coffer/ to share it.");
  if (hit.entry.status === "superseded")
    throw new CofferError(
      `${handle(hit.entry.id)} is superseded${hit.entry.superseded_by ? ` by ${handle(hit.entry.superseded_by)}` : ""}`,
      1,
      hit.entry.superseded_by ? `Promote ${handle(hit.entry.superseded_by)} instead.` : undefined,
    );
  // A promote killed before now left its temp file in the lane, where `git add .coffer` would stage it.
  for (const dir of teamLaneFolders(team.worktree)) removeDeadTemps(dir);
  const clean = scrubFields({ title: hit.entry.title, body: hit.entry.body, tags: hit.entry.tags });
  let result!: PromoteResult;
  withHealing(store, () => {
    refreshScope(dbOf(store), team.key, false, store.notice);
    dbOf(store)
      .transaction(() => {
        const from = hit.scope === GLOBAL ? "global" : "project";
        const dup = dbOf(store)
          .query("SELECT id FROM entries WHERE scope = ? AND norm_hash = ? LIMIT 1")
          .get(team.key, normHash(hit.entry.body)) as { id: string } | null;
        if (dup) {
          result = { id: hit.entry.id, from, status: "duplicate", team_id: dup.id, file: entryPath(team.key, dup.id) };
          return;
        }
        writeEntryFile(store, team.key, { ...hit.entry, updated: isoNow() });
        result = {
          id: hit.entry.id,
          from,
          status: "promoted",
          team_id: hit.entry.id,
          file: entryPath(team.key, hit.entry.id),
          ...(clean.note ? { scrubbed: clean.note } : {}),
        };
      })
      .immediate();
  });
  // The team lane holds it now: the personal copy waits in the trash (coffer restore brings it back).
  // Its note names the team lane, so restore refuses to bring it back beside the team's copy (one id, two entries).
  moveToTrash(store, hit, actor, result.status === "promoted" ? { promotedTo: team.worktree } : {});
  audit({ event: "entry_promoted", id: result.team_id, from: result.from, scope: "team", actor });
  return result;
}
