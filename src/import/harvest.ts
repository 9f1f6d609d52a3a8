/**
 * Harvesting what the agents remember natively (issue 23): Claude Code's auto memory, Gemini CLI's
 * saved memories and Codex's memories file are written by the agents themselves and seen by no
 * other agent. The sweep (`coffer distill sweep`, `coffer serve`'s worker), the session-start hook
 * (this project only, when the files' signature moved) and `coffer import native` bring them into
 * the matching project scope through the import engine: scrubbed, regular files only, never
 * through a link, idempotent (an original already imported is skipped; an edited file rewrites the
 * entry it became). An original deleted at its source leaves its entry alone and is noted once in
 * `state/native.json` (and counted by `coffer stats`). Only the agents' own folders are read: what
 * earlier versions imported from a repository's `GEMINI.md` (other people's commits, issue 36) a
 * full harvest takes back once, to the trash, unless it was edited in Coffer since.
 */
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";
import { readSmallText } from "../lib/small-file";
import { isoNow } from "../lib/time";
import { GLOBAL, type ScopeKey, type Store } from "../store";
import { applyImport, type ImportReport, importKey } from "./engine";
import { listManifests } from "./manifest";
import { type NativeOptions, planNative } from "./native";
import { allSources, isNativeHost, NATIVE_HOSTS, sourcesSignature } from "./native-sources";
import { type Withdrawn, withdrawImported } from "./undo";

export type GoneOriginal = { origin: string; scope: ScopeKey; id: string; noted: string };

export type HarvestReport = ImportReport & {
  /** Originals deleted at their source since the last harvest noticed (their entries are kept). */
  gone: GoneOriginal[];
  /** Entries an earlier harvest made from a repository's file, taken back now (each once). */
  withdrawn: Withdrawn[];
};

type NativeState = {
  gone: Record<string, GoneOriginal>;
  /** The sources' signature at the last full harvest: the sweep skips the work while it holds. */
  sig?: string;
  /** Originals from a repository's file already taken back (by key): a restored entry stays. */
  withdrawn?: Record<string, Withdrawn & { at: string }>;
};

const statePath = () => join(paths.state(), "native.json");

export function readNativeState(): NativeState {
  try {
    const doc = JSON.parse(readSmallText(statePath()) ?? "{}");
    if (doc && typeof doc.gone === "object" && doc.gone)
      return {
        gone: doc.gone,
        ...(typeof doc.sig === "string" ? { sig: doc.sig } : {}),
        ...(doc.withdrawn && typeof doc.withdrawn === "object" ? { withdrawn: doc.withdrawn } : {}),
      };
  } catch {}
  return { gone: {} };
}

/**
 * A bullet earlier versions read from a repository's own `GEMINI.md`: `gemini:<label>/GEMINI.md#<hash>`
 * (the global file's is `gemini:GEMINI.md#…`, a Gemini project note's `gemini:tmp/<id>/memory/…`).
 */
const fromRepositoryFile = (key: string) => /^gemini:(?!tmp\/[^/]+\/memory\/)[^#]+\/GEMINI\.md#[0-9a-z]+$/.test(key);

/** Every native original an import brought in (not undone), by its identity: the entry it became. */
function importedOriginals(hosts: readonly string[]): Map<string, { scope: ScopeKey; id: string }> {
  const out = new Map<string, { scope: ScopeKey; id: string }>();
  for (const m of [...listManifests()].reverse()) {
    if (m.undone_at || m.source !== "native") continue;
    for (const c of m.created) {
      const k = c.origin ?? c.from;
      if (k && hosts.includes(k.slice(0, k.indexOf(":"))) && !fromRepositoryFile(k))
        out.set(k, { scope: c.scope, id: c.id });
    }
  }
  return out;
}

export type HarvestOptions = NativeOptions & {
  dryRun?: boolean;
  /** The caller's open store (the hook's). */
  store?: Store;
};

/**
 * Plan and apply one harvest. A full harvest (no `only`) also notes the originals that are gone
 * from their source and takes back what came from a repository's file; a dry run writes nothing,
 * not even that note.
 */
export async function harvestNative(opts: HarvestOptions): Promise<HarvestReport> {
  const plan = planNative(opts);
  const report = await applyImport(plan, {
    dryRun: opts.dryRun,
    cwd: opts.cwd,
    store: opts.store,
  });
  const gone: GoneOriginal[] = [];
  let withdrawn: Withdrawn[] = [];
  if (!opts.only) {
    const hosts = (opts.hosts ?? NATIVE_HOSTS.join(",")).split(",").map((h) => h.trim().toLowerCase());
    const present = new Set(plan.present.map(importKey));
    const state = readNativeState();
    let changed = false;
    if (hosts.includes("gemini")) {
      const done = new Set(Object.keys(state.withdrawn ?? {}));
      withdrawn = withdrawImported((c) => !c.origin && c.scope !== GLOBAL && !!c.from && fromRepositoryFile(c.from), {
        skip: done,
        dryRun: opts.dryRun,
        store: opts.store,
        cwd: opts.cwd,
        actor: "import:gemini",
      });
      const at = isoNow();
      const noted = { ...state.withdrawn };
      for (const w of withdrawn) noted[w.from] = { ...w, at };
      state.withdrawn = noted;
      changed ||= withdrawn.length > 0;
    }
    for (const [origin, at] of importedOriginals(hosts)) {
      if (present.has(origin)) {
        if (state.gone[origin]) {
          delete state.gone[origin];
          changed = true;
        }
        continue;
      }
      if (state.gone[origin]) continue;
      const g = { origin, ...at, noted: isoNow() };
      gone.push(g);
      state.gone[origin] = g;
      changed = true;
    }
    if (changed && !opts.dryRun) writeFileAtomic(statePath(), `${JSON.stringify(state, null, 2)}\n`, 0o600);
  }
  return { ...report, gone, withdrawn };
}

const SIG_VERSION = "v2";

/**
 * The sweep's harvest (`coffer distill sweep`, `coffer serve`'s worker): every native source on
 * the machine, but only when their signature moved since the last full harvest (a few lstat
 * calls otherwise). Returns undefined when nothing changed. `SIG_VERSION` moves when a harvest
 * must run once whatever the files (v2: take back what came from repository files, issue 36).
 */
export async function sweepNative(opts: { cwd: string; hosts?: string[] }): Promise<HarvestReport | undefined> {
  const hosts = (opts.hosts ?? [...NATIVE_HOSTS]).filter(isNativeHost);
  if (!hosts.length) return undefined;
  const sig = `${SIG_VERSION}:${hosts.join(",")}:${sourcesSignature(allSources(hosts)).sig}`;
  if (readNativeState().sig === sig) return undefined;
  const report = await harvestNative({ cwd: opts.cwd, hosts: hosts.join(",") });
  writeFileAtomic(statePath(), `${JSON.stringify({ ...readNativeState(), sig }, null, 2)}\n`, 0o600);
  return report;
}
