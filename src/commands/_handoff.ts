import { writeOut } from "../lib/output";
import { getHandoff, handoffFreshness } from "../store";
import { cliStore, notice, printJson } from "./_shared";

/** Print this branch's handoff (`coffer resume`, `coffer handoff`). */
export function printHandoff(json: boolean | undefined): void {
  const store = cliStore({ freshness: "none" });
  const h = getHandoff(store);
  const f = h && store.project ? handoffFreshness(store.project, h, { files: true }) : undefined;
  if (json) {
    printJson(
      h && f
        ? {
            found: true,
            branch: h.branch,
            body: h.body,
            updated: h.updated,
            note: f.note,
            stale: f.stale,
            commits_since: f.commits ?? null,
            files_changed_since: f.files ?? null,
          }
        : { found: false },
    );
    return;
  }
  if (!h || !f) {
    notice(
      `No handoff for ${store.project?.branch ? `branch ${store.project.branch}` : "this checkout"} yet. Save one with \`coffer handoff set <text>\`.`,
    );
    return;
  }
  writeOut(`Handoff for ${h.branch ? `branch ${h.branch}` : "detached HEAD"} (${f.note})\n\n${h.body}\n`);
}
