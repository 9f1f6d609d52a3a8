import type { Kind, ProjectScope, ScopeKey, Source } from "../store";

export type ImportSource = "claude-mem" | "engram" | "native" | "coffer";

/** One memory to bring in, already mapped to Coffer's vocabulary (before scrubbing and folding). */
export type ImportItem = {
  /** `global` or a project id. */
  scope: ScopeKey;
  /** The project, when known on this machine (its project.md is written on first use). */
  project?: ProjectScope;
  kind: Kind;
  title: string;
  body: string;
  tags: string[];
  applies_to?: string[];
  created: string;
  updated: string;
  /**
   * Stable key of the original (`claude-mem:<source id>:observation:42:<content hash>`: the source
   * id tells two databases apart, the hash a copy's own row 42 from this one's); a re-run skips
   * keys already imported.
   */
  imported_from?: string;
  /**
   * The key an earlier Coffer gave the same original (without the content hash): when an import
   * under that key created the entry this item folds into, the item counts as already imported.
   */
  earlier_key?: string;
  /**
   * The original's identity across its edits (a native memory file: `claude:<slug>/memory/x.md`),
   * when it has one. An item whose `imported_from` is new but whose origin an earlier import
   * brought in rewrites that entry instead of adding another.
   */
  origin?: string;
  origin_session?: string;
  /** `coffer import` only: the entry keeps its id, actor and source, and its file text when given. */
  id?: string;
  actor?: string;
  source?: Source;
  file?: string;
  /** A human label for the item's origin, shown in dry-run samples. */
  label?: string;
};

/** A whole file to restore as it was (`coffer import`: project.md, rules.md, handoffs). */
export type ImportFile = {
  scope: ScopeKey;
  /** Path inside the scope directory, e.g. `rules.md` or `handoff/main.md`. */
  name: string;
  text: string;
};

/** What an importer found: the items, plus what it could not place and why. */
export type ImportPlan = {
  source: ImportSource;
  /** Where it read from (a path), for the summary and the audit record. */
  from: string;
  items: ImportItem[];
  files?: ImportFile[];
  /** One line per group of skipped originals ("project old-app: directory gone; map it with --project"). */
  skipped: { reason: string; count: number }[];
  /** Told to the user before the summary ("the file holds no memories"). */
  warnings?: string[];
};
