/**
 * Which project a session belongs to, and a store that writes into that project's scope even
 * when the session's checkout is gone (a Codex rollout still names its origin).
 */
import { existsSync } from "node:fs";
import { cofferHome } from "../lib/paths";
import { projectIdFor, resolveProject } from "./scope";
import { openStore, type Store } from "./store";

/** A project scope as a session knows it: never a machine path beyond `root`, which is not stored. */
export type ProjectRef = { id: string; label: string; origin?: string; root?: string };

export function projectForSession(cwd: string | undefined, origin?: string): ProjectRef | undefined {
  if (cwd) {
    const p = resolveProject(cwd);
    if (p) return { id: p.id, label: p.label, origin: p.origin, root: p.root };
  }
  if (origin) return { id: projectIdFor(`remote:${origin}`), label: origin.split("/").pop() || origin, origin };
  return undefined;
}

/**
 * A store whose project scope is `ref`: opened in the project's checkout when it still exists,
 * otherwise with the project known by id only (writes need its id, label and origin, no path).
 */
export function openProjectStore(ref: ProjectRef, notice?: (m: string) => void): Store {
  const cwd = ref.root && existsSync(ref.root) ? ref.root : cofferHome();
  const store = openStore({ cwd, freshness: "none", notice });
  if (store.project?.id !== ref.id) {
    store.project = {
      id: ref.id,
      label: ref.label,
      origin: ref.origin,
      root: ref.root ?? "",
      worktree: ref.root ?? "",
      gitDir: "",
    };
    store.team = undefined; // the cwd's team lane belongs to another project
  }
  return store;
}
