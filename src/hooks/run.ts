/**
 * One hook event against the store: what to inject, what to record. Host-neutral: the adapter
 * turned stdin into a HookInput and turns the returned context back into the host's JSON.
 */

import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { Config, READ_MODES } from "../config/config";
import type { Capacity, HookInput, HostAdapter } from "../hosts/hook";
import { promptPaths, touchedInside } from "../retrieval/analysis/named-paths";
import { globPaths } from "../retrieval/match";
import {
  bodyWorthy,
  freshRoute,
  globalCards,
  loadBodies,
  projectCards,
  type Routed,
  routeByPaths,
  routedByIds,
  routePrompt,
  teamCards,
} from "../retrieval/route";
import {
  activeScopes,
  type Card,
  checkedAgainstFiles,
  conflictMark,
  conflictNote,
  entriesDir,
  freshFirst,
  GLOBAL,
  getHandoff,
  handoffFreshness,
  type IndexedFile,
  inOneWrite,
  logHookEvent,
  lookScrubbed,
  lookStartCache,
  readRules,
  readSession,
  recordInjection,
  type SessionKey,
  type SessionUpdate,
  type ShownFile,
  type Store,
  SYNC_CONFLICT_TAG,
  scopeGens,
  scrubRules,
  sessionKey,
  syncConflicts,
  updateSession,
  writeScrubbed,
  writeStartCache,
} from "../store";
import {
  type Bundle,
  bundleSig,
  cardLine,
  type MemoryItem,
  type MemoryPlan,
  type PromptBudget,
  planBundle,
  planMemory,
  promptBudget,
  proofOnly,
  roomForCards,
  ruleBlocks,
  type StartExtras,
  sig,
} from "./plan";

export type ReadMode = (typeof READ_MODES)[number];

/** What a handler decided: context to inject (undefined = the host's empty output). */
export type HookResult = { context?: string };

export type HookContext = {
  store: Store;
  config: Config;
  adapter: HostAdapter;
  input: HookInput;
  cap: Capacity;
  now: number;
};

/** Session-cache writes an event decided on; runEvent applies them with the event's log in one transaction. */
type Writes = (() => void)[];
const pending = new WeakMap<HookContext, Writes>();

/** Queue this event's change to a session's cache record (its last store action: nothing reads it back). */
function save(ctx: HookContext, key: SessionKey, update: SessionUpdate): void {
  queue(ctx, () => updateSession(ctx.store, key, update, ctx.now));
}

/** Queue one of this event's cache writes (they run in the event's one write transaction). */
function queue(ctx: HookContext, write: () => void): void {
  const writes = pending.get(ctx) ?? [];
  pending.set(ctx, writes);
  writes.push(write);
}

export const TOOL_MAX_BODIES = 3;

export function readMode(config: Config): ReadMode {
  return config["hook.read"];
}

const proofOn = (config: Config) => config["hook.proof"] === "compact";

export function readBundle(store: Store, ctx?: HookContext): Bundle {
  const [projectText, teamText = "", globalText = ""] = scrubbedRules(
    store,
    [
      store.project ? readRules(store.project.id) : undefined,
      store.team?.present ? readRules(store.team.key) : "",
      readRules(GLOBAL),
    ],
    ctx,
  );
  return {
    project: projectText === undefined ? undefined : ruleBlocks(projectText),
    // The repository's team rules: delivered like a CLAUDE.md would be, under their own heading.
    ...(teamText.trim() ? { team: ruleBlocks(teamText), teamLabel: store.team?.label } : {}),
    global: ruleBlocks(globalText),
    sig: bundleSig(projectText, globalText, teamText),
  };
}

/** Bump when the scrubber changes what it finds: a new binary never reuses rules an older one scrubbed. */
const SCRUBBED_VERSION = "1";

/**
 * Rules texts as they go out: scrubbed (a hand-edited or a team's committed rules.md never passed
 * the scrubber on the way in: issue 36 item 9), each content once (kept for later events).
 */
function scrubbedRules(store: Store, texts: (string | undefined)[], ctx?: HookContext): (string | undefined)[] {
  const hashOf = (t: string) => new Bun.CryptoHasher("sha256").update(`${SCRUBBED_VERSION}\u0000${t}`).digest("hex");
  const todo = texts.filter((t): t is string => !!t?.trim());
  if (!todo.length) return texts;
  let known = new Map<string, string>();
  try {
    known = lookScrubbed(store, todo.map(hashOf));
  } catch {}
  return texts.map((t) => {
    if (!t?.trim()) return t;
    const hash = hashOf(t);
    const hit = known.get(hash);
    if (hit !== undefined) return hit;
    const clean = scrubRules(t);
    known.set(hash, clean);
    if (ctx) queue(ctx, () => writeScrubbed(store, hash, clean, ctx.now));
    return clean;
  });
}

/**
 * One line announcing this branch's handoff, if there is one: its age and freshness (commits on
 * the branch since, from .git files) and its first line; the rest stays behind coffer__resume.
 */
function handoffLine(store: Store): string | undefined {
  if (!store.project) return undefined;
  try {
    const h = getHandoff(store);
    if (!h) return undefined;
    const f = handoffFreshness(store.project, h);
    const first = (h.body.split("\n").find((l) => l.trim()) ?? "").replace(/\s+/g, " ").trim();
    const quote = first.length > 100 ? `${first.slice(0, 99)}…` : first;
    const branch = store.project.branch ? `branch \`${store.project.branch}\`` : "this checkout";
    return `A handoff for ${branch} (${f.note}) begins "${quote}". When the user wants to continue, call \`coffer__resume()\` to read it.`;
  } catch {
    return undefined; // the hook never fails over a handoff
  }
}

/**
 * The session-start text for a fresh session (also what the HTTP session-context route
 * serves): rules bundle, the handoff line, then global convention/preference cards and the
 * project's most useful entries as cards unless the read mode is manual.
 */
export function sessionStartText(store: Store, config: Config, cap: Capacity, bundle = readBundle(store)): string {
  return renderStart(store, config, cap, bundle, handoffLine(store)).text;
}

/** The session-start text, the cards' files it shows, and whether checking them caught the index up. */
function renderStart(
  store: Store,
  config: Config,
  cap: Capacity,
  bundle: Bundle,
  handoff: string | undefined,
): { text: string; shown: IndexedFile[]; changed: boolean; cardless: boolean } {
  const mode = readMode(config);
  if (mode === "off") return { text: "", shown: [], changed: false, cardless: true };
  // The cards shown, checked against their files (a hand-edited title is shown as it is now):
  // each card was read with its indexed file, so the check is one lstat per card.
  const proofLine = (total: number) =>
    proofOn(config)
      ? (n: number) =>
          `Coffer proof: loaded rules + ${n}/${total} memory cards via session start (read mode ${mode}, sig ${bundle.sig.slice(0, 8)}).`
      : undefined;
  // No card is read when none could be shown: the rules alone fill the cap (the proof line at its
  // shortest, so this never skips cards that would fit).
  const cardless = mode === "manual" || !roomForCards(bundle, handoff, cap.limit, cap.measure, proofLine(0));
  const files = (e: StartExtras): IndexedFile[] =>
    [...e.global, ...e.project, ...(e.team ?? [])].flatMap((c) =>
      c.rowid === undefined || c.scope === undefined || c.file === undefined
        ? []
        : [{ rowid: c.rowid, scope: c.scope, file: c.file, size: c.size ?? -1, mtime_ms: c.mtime_ms ?? -1 }],
    );
  const checked = checkedAgainstFiles(
    store,
    () =>
      startCards(
        handoff,
        cardless ? [] : freshFirst(store, globalCards(store)),
        cardless ? [] : freshFirst(store, projectCards(store)),
        cardless ? [] : freshFirst(store, teamCards(store)),
      ),
    files,
  );
  const keep = (cards: Card[]) => cards.filter((c) => c.rowid === undefined || !checked.stale.has(c.rowid));
  const team = keep(checked.value.team ?? []);
  const extras: StartExtras = {
    handoff: checked.value.handoff,
    global: keep(checked.value.global),
    project: keep(checked.value.project),
    ...(team.length ? { team } : {}),
  };
  const total = extras.global.length + extras.project.length + (extras.team?.length ?? 0);
  const text = planBundle(bundle, extras, cap.limit, cap.measure, proofLine(total))?.text ?? "";
  return { text, shown: files(extras), changed: checked.changed, cardless };
}

/**
 * The session start hook's text, reused while nothing it depends on changed: the same host,
 * cap, read mode, proof setting, rules, handoff line and scopes, no entry of those scopes changed
 * in the index (scope_counts.gen; a text that shows no card depends on none), and every card's
 * file as it was (size and mtime). So a
 * session start at 100,000 entries skips the card queries and the rendering; a changed entry
 * file is caught by the same check as a fresh render (and the render then re-reads it).
 */
function cachedStartText(ctx: HookContext, bundle: Bundle): string {
  const { store, config, cap } = ctx;
  if (readMode(config) === "off") return "";
  const handoff = handoffLine(store);
  const scopes = activeScopes(store);
  const ckey = sig([
    START_CACHE_VERSION,
    ctx.input.host,
    String(cap.limit),
    readMode(config),
    String(proofOn(config)),
    bundle.sig,
    handoff ?? "",
    ...scopes,
  ]);
  let gens: string | undefined;
  try {
    const found = lookStartCache(store, ckey, scopes);
    gens = found.gens;
    const hit = found.hit;
    if (hit && (hit.gens === ANY_GENS || hit.gens === gens) && hit.shown.every(unchanged)) return hit.text;
  } catch {}
  const { text, shown, changed, cardless } = renderStart(store, config, cap, bundle, handoff);
  // The render's check caught the index up: the gens moved with it.
  if (changed || gens === undefined) gens = scopeGens(store, scopes);
  const files: ShownFile[] = shown.map((f) => [f.scope, f.file, f.size, f.mtime_ms]);
  // A text without cards (read mode manual, or rules that fill the cap) depends on no entry:
  // every input it has is in the key, so a write to the scopes does not make it stale.
  const at = cardless ? ANY_GENS : gens;
  queue(ctx, () => writeStartCache(store, ckey, { gens: at, text, shown: files }, ctx.now));
  return text;
}

/** The gens of a cached text that shows no card: valid whatever the scopes' entries are. */
const ANY_GENS = "*";

/** Bump when the session-start text's layout changes: a new binary never reuses an older rendering. */
const START_CACHE_VERSION = "2";

/** The card's file still has the size and mtime it was indexed with. */
function unchanged([scope, file, size, mtimeMs]: ShownFile): boolean {
  try {
    const st = lstatSync(join(entriesDir(scope), file));
    return st.isFile() && st.size === size && st.mtimeMs === mtimeMs;
  } catch {
    return false;
  }
}

/** Characters session start spends on cards (global first, then project), whatever the host's cap. */
export const START_CARDS_CHARS = 2500;

/** Session-start cards: global conventions/preferences first, then project entries, then team entries, in START_CARDS_CHARS. */
function startCards(handoff: string | undefined, global: Card[], project: Card[], team: Card[]): StartExtras {
  let left = START_CARDS_CHARS;
  const fit = (cards: Card[]) => {
    const out: Card[] = [];
    for (const c of cards) {
      const size = cardLine(c).length + 1;
      if (size > left) break;
      left -= size;
      out.push(c);
    }
    return out;
  };
  const g = fit(global);
  const p = fit(project);
  const t = fit(team);
  return { handoff, global: g, project: p, ...(t.length ? { team: t } : {}) };
}

/** Rules only, in at most half the cap: the self-contained prefix of subagent and slot outputs. */
function rulesPrefix(ctx: HookContext, bundle = readBundle(ctx.store, ctx)): string {
  return planBundle(bundle, NO_EXTRAS, Math.floor(ctx.cap.limit / 2), ctx.cap.measure)?.text ?? "";
}

const NO_EXTRAS: StartExtras = { global: [], project: [] };

/** The per-prompt budget: `load.prompt_max_chars`, a few bodies, then a few cards. */
const budgetOf = (config: Config): PromptBudget => promptBudget(config["load.prompt_max_chars"]);

/** The delivered set this event reads and writes: the subagent's own when it carries an agent id. */
function keyOf(ctx: HookContext): SessionKey {
  return sessionKey(ctx.input.host, ctx.input.cwd, ctx.input.sessionId, ctx.input.agentId);
}

function parentKeyOf(ctx: HookContext): SessionKey {
  return sessionKey(ctx.input.host, ctx.input.cwd, ctx.input.sessionId);
}

/** Routed entries with their bodies; those not in `worthy` (when given) may only become cards. */
function memoryItems(store: Store, routed: Routed[], worthy?: Set<string>): MemoryItem[] {
  const bodies = loadBodies(store, routed);
  return routed.flatMap((r) => {
    const body = bodies.get(r.rowid);
    if (body === undefined) return [];
    const item: MemoryItem = { id: r.id, title: r.title, body, hash: r.hash };
    if (r.scope === store.team?.key) item.lane = "team";
    // Kept after a sync conflict: one version goes out, saying where the older one is (until forgotten).
    if (r.tags.includes(SYNC_CONFLICT_TAG)) {
      const copies = syncConflicts(store, { scope: r.scope, kept: r.id }).map((c) => c.copy);
      if (copies.length) {
        item.body = `${body}\n\n${conflictNote(copies)}`;
        item.mark = conflictMark(copies);
      }
    }
    if (worthy && !worthy.has(r.id)) item.cardOnly = true;
    return [item];
  });
}

function record(
  ctx: HookContext,
  key: SessionKey,
  plan: MemoryPlan | undefined,
  extra: { slotSig?: string } = {},
): void {
  const delivered = plan?.sent.map((s) => ({ id: s.id, hash: s.hash })) ?? [];
  if (!delivered.length && extra.slotSig === undefined) return;
  save(ctx, key, { delivered, ...extra });
}

// ---------------------------------------------------------------------------------------------

function sessionStart(ctx: HookContext): HookResult {
  const { store, input } = ctx;
  const key = keyOf(ctx);
  const bundle = readBundle(store, ctx);
  const text = cachedStartText(ctx, bundle);
  if (input.source === "resume") {
    // The host replays the resumed history, earlier context included: keep the delivered set,
    // and re-send the bundle only when it changed since this session got it (or, where the host
    // rebuilds the system prompt that held it, always).
    const state = readSession(store, key);
    if (state?.bundleSig === bundle.sig && !ctx.adapter.resumeRebuildsStart) {
      save(ctx, key, {});
      return {};
    }
    save(ctx, key, { bundleSig: bundle.sig, slotSig: ctx.adapter.slot ? sig([text]) : undefined });
    return { context: text || undefined };
  }
  save(ctx, key, { reset: true, bundleSig: bundle.sig, slotSig: ctx.adapter.slot ? sig([text]) : undefined });
  return { context: text || undefined };
}

function prompt(ctx: HookContext): HookResult {
  const { store, config, input } = ctx;
  const mode = readMode(config);
  const proof = proofOn(config);
  if (mode !== "auto" && mode !== "always") {
    return proof ? { context: proofOnly(`Coffer proof: no load this turn (read mode ${mode}).`) } : {};
  }
  const text = input.prompt ?? "";
  const routed = text.trim() ? freshRoute(store, () => routePrompt(store, text, promptPaths(text, input.cwd))) : [];
  // Nothing routed: nothing to say, not even a proof line (a heading over "no load" is noise).
  if (!routed.length) return {};
  const key = keyOf(ctx);
  const routedSig = sig(routed.map((r) => r.id));

  if (ctx.adapter.slot === "replace") {
    // One slot that each answer replaces: send the whole routed set, or retain when unchanged.
    const state = readSession(store, key);
    const plan = planMemory({
      prefix: rulesPrefix(ctx),
      candidates: memoryItems(store, routed, bodyWorthy(store, routed)),
      alreadyLoaded: [],
      proof: proof
        ? (n) => `Coffer proof: loaded ${n}/${routed.length} via hook ${mode} (sig ${routedSig}).`
        : undefined,
      budget: budgetOf(config),
      cap: ctx.cap,
    });
    if (!plan) return {};
    const slotSig = sig([plan.text]);
    if (state?.slotSig === slotSig) return {};
    record(ctx, key, plan, { slotSig });
    return { context: plan.text };
  }

  const state = readSession(store, key);
  const delivered = state?.delivered ?? new Map<string, string>();
  const fresh = mode === "always" ? routed : routed.filter((r) => delivered.get(r.id) !== r.hash);
  const already = mode === "always" ? [] : routed.filter((r) => delivered.get(r.id) === r.hash).map((r) => r.id);
  const plan = planMemory({
    candidates: memoryItems(store, fresh, bodyWorthy(store, routed)),
    alreadyLoaded: already,
    proof: proof
      ? (n) =>
          n === 0 && already.length === routed.length
            ? `Coffer proof: reused ${already.length}/${routed.length}, nothing new (sig ${routedSig}).`
            : `Coffer proof: loaded ${n}/${routed.length} via hook ${mode} (sig ${routedSig}).`
      : undefined,
    budget: budgetOf(config),
    cap: ctx.cap,
  });
  record(ctx, key, plan);
  return { context: plan?.text };
}

/** The entries a tool event's touched paths route to (none when it touched no path under cwd). */
function pathRouted(ctx: HookContext): Routed[] {
  const { store, input } = ctx;
  const abs = (input.filePaths ?? []).flatMap((p) => {
    const a = touchedInside(input.cwd, p);
    return a ? [a] : [];
  });
  const rel = globPaths(store, abs);
  if (!rel.length) return [];
  return freshRoute(store, () => routeByPaths(store, rel));
}

function tool(ctx: HookContext): HookResult {
  const { store, config, input } = ctx;
  const mode = readMode(config);
  if (mode !== "auto" && mode !== "always") return {};
  // A host whose SubagentStart context never reaches the subagent (Qwen): the subagent's first
  // tool result carries what SubagentStart would have, with this tool's path-triggered entries.
  if (ctx.adapter.subagentsVia === "tool" && input.agentId && readSession(store, keyOf(ctx))?.bundleSig == null)
    return subagentStart(ctx, pathRouted(ctx).slice(0, TOOL_MAX_BODIES));
  const matched = pathRouted(ctx);
  if (!matched.length) return {};
  const key = keyOf(ctx);
  const delivered = readSession(store, key)?.delivered;
  const fresh = matched.filter((r) => delivered?.get(r.id) !== r.hash).slice(0, TOOL_MAX_BODIES);
  if (!fresh.length) return {};
  const plan = planMemory({
    candidates: memoryItems(store, fresh),
    alreadyLoaded: [],
    proof: proofOn(config)
      ? (n) => `Coffer proof: loaded ${n}/${fresh.length} via path trigger (sig ${sig(fresh.map((f) => f.id))}).`
      : undefined,
    cap: ctx.cap,
  });
  // A body too large for the cap still shows as a card the agent can read through MCP.
  if (!plan || (!plan.sent.length && !plan.cards.length)) return {};
  record(ctx, key, plan);
  return { context: plan.text };
}

function compact(ctx: HookContext): HookResult {
  save(ctx, keyOf(ctx), { reset: true });
  return {};
}

/**
 * A subagent's start: the rules, the parent's routed memory (newest first) and whatever its task
 * text routes, under its own key; the parent's set is untouched. `first`: entries that go before
 * the rest (a tool event's path-triggered ones, when the bundle rides on the subagent's first
 * tool result, which then records the bundle's signature so it goes once).
 */
function subagentStart(ctx: HookContext, first?: Routed[]): HookResult {
  const { store, config, input } = ctx;
  const mode = readMode(config);
  if (mode !== "auto" && mode !== "always") return {};
  if (!input.agentId) return {};
  const parent = readSession(store, parentKeyOf(ctx));
  const inherited = freshRoute(store, () => routedByIds(store, [...(parent?.delivered.keys() ?? [])]));
  const task = input.prompt?.trim()
    ? freshRoute(store, () => routePrompt(store, input.prompt!, promptPaths(input.prompt!, input.cwd)))
    : [];
  const seen = new Set<string>();
  const routed = [...(first ?? []), ...task, ...inherited].filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id)));
  const key = keyOf(ctx);
  const delivered = readSession(store, key)?.delivered;
  const fresh = routed.filter((r) => delivered?.get(r.id) !== r.hash);
  const already = routed.filter((r) => delivered?.get(r.id) === r.hash).map((r) => r.id);
  const bundle = readBundle(store, ctx);
  const prefix = rulesPrefix(ctx, bundle);
  const plan = planMemory({
    prefix,
    candidates: memoryItems(store, fresh),
    alreadyLoaded: already,
    proof: proofOn(config)
      ? (n) =>
          `Coffer proof: loaded ${n}/${routed.length} for subagent ${input.agentId} (sig ${sig(routed.map((r) => r.id))}).`
      : undefined,
    cap: ctx.cap,
  });
  const sent = plan?.sent.map((s) => ({ id: s.id, hash: s.hash })) ?? [];
  save(ctx, key, first ? { delivered: sent, bundleSig: bundle.sig } : { delivered: sent });
  if (plan && (plan.sent.length || plan.cards.length || already.length || proofOn(config)))
    return { context: plan.text };
  return { context: prefix || undefined };
}

/** A session's cache record as one comparable string ("" when there is none). */
function sessionSnapshot(store: Store, key: SessionKey): string {
  const s = readSession(store, key);
  return s ? JSON.stringify([s.bundleSig, s.slotSig, [...s.delivered].sort()]) : "";
}

/** Dispatch one event that needs the store, and log what it delivered (counts, never text). */
export function runEvent(ctx: HookContext): HookResult {
  if (ctx.input.event === "session-end") return dispatch(ctx);
  const key = keyOf(ctx);
  const seen = sessionSnapshot(ctx.store, key);
  let result = dispatch(ctx);
  // One write transaction for the whole event: the session's record, then the log (each write
  // inside is a savepoint, so a failing log is undone alone and never costs the agent its context).
  inOneWrite(ctx.store, () => {
    // Another hook of the same session (a user and a --project link both fire) wrote since this
    // one read its record: decide again under the write lock, so no body is delivered twice.
    if (sessionSnapshot(ctx.store, key) !== seen) {
      pending.delete(ctx);
      result = dispatch(ctx);
    }
    const writes = pending.get(ctx) ?? [];
    for (const write of writes) write();
    try {
      const chars = result.context?.length ?? 0;
      logHookEvent(ctx.store, key, ctx.input.event, chars, ctx.now);
      // What `coffer stats` counts per day, host and event (counts only, never text).
      recordInjection(
        ctx.store,
        {
          host: ctx.input.host,
          event: ctx.input.event,
          chars,
          skey: key.skey,
          cwd: ctx.input.cwd,
          project: ctx.store.project?.label ?? null,
        },
        ctx.now,
      );
    } catch {}
  });
  return result;
}

function dispatch(ctx: HookContext): HookResult {
  switch (ctx.input.event) {
    case "session-start":
      return sessionStart(ctx);
    case "prompt":
      return prompt(ctx);
    case "tool":
      return tool(ctx);
    case "compact":
      return compact(ctx);
    case "subagent-start":
      return subagentStart(ctx);
    default:
      return {};
  }
}
