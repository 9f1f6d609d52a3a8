import { defineCommand } from "citty";
import { ageText, type RepoChanges, repoChangesSince } from "../lib/git-files";
import { getHandoff, type Handoff } from "../store/handoff";
import type { ProjectScope } from "../store/scope";
import { withExamples } from "./_run";
import { cliStore, jsonArg, notice, plural, printJson } from "./_shared";

export type Freshness = RepoChanges & { stale: boolean; note: string };

/**
 * A handoff's freshness from the repository, not the clock: "may be stale" only when commits
 * were made or tracked files changed since it was saved (or when that cannot be read).
 */
export function handoffFreshness(
  project: Pick<ProjectScope, "gitDir" | "worktree" | "branch">,
  h: Handoff,
  opts: { files?: boolean; now?: number } = {},
): Freshness {
  const saved = Date.parse(h.updated);
  const age = Number.isNaN(saved) ? `saved ${h.updated}` : `saved ${ageText((opts.now ?? Date.now()) - saved)} ago`;
  // `updated` has second precision: anything within that second happened before the save.
  const changes = Number.isNaN(saved) ? {} : repoChangesSince(project, saved + 999, { files: opts.files });
  const moved: string[] = [];
  if (changes.commits)
    moved.push(`${plural(changes.commits, "commit")}${project.branch ? ` on ${project.branch}` : ""}`);
  if (changes.files) moved.push(`${plural(changes.files, "file")} changed`);
  if (changes.commits === undefined)
    return { ...changes, stale: true, note: `${age}, may be stale; ignore if unrelated` };
  if (moved.length)
    return {
      ...changes,
      stale: true,
      note: `${age}; since then ${moved.join(", ")}: may be stale; ignore if unrelated`,
    };
  return { ...changes, stale: false, note: `${age}; no commits${opts.files ? " or file changes" : ""} since` };
}

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
  process.stdout.write(`Handoff for ${h.branch ? `branch ${h.branch}` : "detached HEAD"} (${f.note})\n\n${h.body}\n`);
}

export default withExamples(
  defineCommand({
    meta: { name: "resume", description: "Print this branch's handoff, with a freshness note" },
    args: { ...jsonArg },
    run({ args }) {
      printHandoff(args.json);
    },
  }),
  ["coffer resume", "coffer resume --json"],
);
