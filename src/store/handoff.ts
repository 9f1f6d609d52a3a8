/** The handoff lane: one note per project branch saying where the work stands. */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import { paths } from "../lib/paths";
import { isoNow } from "../lib/time";
import { audit, scrubFields } from "../scrub/write";
import { ageText, type RepoChanges, repoChangesSince } from "./git-files";
import { assertMemoryWritePath, readMemoryFile } from "./indexer";
import type { ProjectScope } from "./scope";
import { bodyMax, ensureProjectFile, type Store } from "./store";

function branchSlug(branch: string | undefined): string {
  if (!branch) return "detached";
  const slug =
    branch
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[.-]+/, "")
      .slice(0, 80) || "branch";
  return slug === branch ? slug : `${slug}-${sha256(branch).slice(0, 6)}`;
}

export type Handoff = { branch: string | null; body: string; updated: string };

function requireProject(store: Store): ProjectScope {
  if (!store.project) {
    throw new CofferError(
      `handoff needs a git project: ${store.cwd} is not inside a repository`,
      1,
      "Run it inside the repository you are working on.",
    );
  }
  return store.project;
}

export function handoffPath(project: ProjectScope): string {
  return join(paths.projectScope(project.id), "handoff", `${branchSlug(project.branch)}.md`);
}

export function setHandoff(
  store: Store,
  body: string,
  actor: string,
  opts: { allowSecret?: boolean } = {},
): { status: "saved"; branch: string | null; scope: "project"; updated: string; scrubbed?: string } {
  const project = requireProject(store);
  const clean = scrubFields({ body }, opts.allowSecret);
  const text = clean.fields.body.trim();
  if (!text) throw new CofferError("handoff text is empty", 1, "Say where the work stands and what comes next.");
  const max = bodyMax(store);
  if (text.length > max) throw new CofferError(`handoff is ${text.length} characters; the limit is ${max}`);
  ensureProjectFile(project);
  const updated = isoNow();
  const branch = project.branch ?? null;
  assertMemoryWritePath(handoffPath(project));
  writeFileAtomic(
    handoffPath(project),
    ["---", `branch: ${JSON.stringify(branch)}`, `updated: ${updated}`, "---", text, ""].join("\n"),
  );
  audit({ event: "handoff_saved", scope: "project", actor });
  return { status: "saved", branch, scope: "project", updated, ...(clean.note ? { scrubbed: clean.note } : {}) };
}

/** Remove this branch's handoff file (the work it described is done). */
export function clearHandoff(store: Store, actor: string): { status: "cleared" | "none"; branch: string | null } {
  const project = requireProject(store);
  const file = handoffPath(project);
  const branch = project.branch ?? null;
  if (!existsSync(file)) return { status: "none", branch };
  rmSync(file, { force: true });
  audit({ event: "handoff_cleared", scope: "project", actor });
  return { status: "cleared", branch };
}

export function getHandoff(store: Store): Handoff | undefined {
  const project = requireProject(store);
  let text: string;
  let mtimeMs: number;
  try {
    ({ text, mtimeMs } = readMemoryFile(handoffPath(project)));
  } catch {
    return undefined; // missing, a link, not a regular file, or too large: never read
  }
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  let meta: Record<string, unknown> = {};
  if (m) {
    try {
      meta = (Bun.YAML.parse(m[1]!) as Record<string, unknown>) ?? {};
    } catch {}
  }
  const updated = meta.updated ? String(meta.updated) : isoNow(new Date(mtimeMs));
  return { branch: project.branch ?? null, body: (m ? text.slice(m[0].length) : text).trim(), updated };
}

export type Freshness = RepoChanges & { stale: boolean; note: string };

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * The freshness note every resume carries, from the repository rather than the clock: "may be
 * stale" only when commits were made on the branch or (with `files`) tracked files changed since
 * the handoff was saved, or when that cannot be read. `.git` files only: the hook can afford the
 * commit count; the file check stats every tracked file, so only the CLI and MCP ask for it.
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
    moved.push(`${count(changes.commits, "commit")}${project.branch ? ` on ${project.branch}` : ""}`);
  if (changes.files) moved.push(`${count(changes.files, "file")} changed`);
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
