/**
 * Distilling one session: parse, clean, scrub, budget, one model call, validated insights,
 * one entry per insight in the session's project scope, a ledger line. Every way out says why.
 */

import type { Config } from "../config/config";
import { type Conflict, writeConflict } from "../inbox/conflicts";
import { itemProject } from "../inbox/files";
import { proposeForTeam } from "../inbox/team-proposals";
import { CofferError } from "../lib/errors";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { nearestEntries } from "../retrieval/similarity";
import type { Found } from "../scrub/index";
import { audit, mergeFound, scrubbedNote } from "../scrub/write";
import {
  closeStore,
  openProjectStore,
  type ProjectRef,
  projectForSession,
  type RememberInput,
  type RememberResult,
  remember,
  vectorText,
} from "../store";
import { type PreparedConversation, prepareConversation } from "../transcripts/conversation";
import { parseSessionFile, type SessionFile } from "../transcripts/discovery";
import { scrubTexts } from "../transcripts/scrub";
import type { ParsedTranscript, TranscriptHost } from "../transcripts/types";
import { checkBudget, estimateSession } from "./budget";
import { complete } from "./complete";
import { checkReferences, type Insight, parseInsights } from "./insights";
import { cleanKeywords } from "./keywords";
import {
  appendLedger,
  failedAttempts,
  isDistilled,
  type Ledger,
  MAX_FAILED_ATTEMPTS,
  readLedger,
  sessionSha256,
  stopsSweep,
} from "./ledger";
import {
  CONFIGURE_MODEL_HINT,
  describeSettings,
  ModelError,
  type ModelErrorKind,
  type ModelSettings,
  modelLabel,
  resolveModel,
  type Usage,
} from "./model";
import { RUN_MARKER, renderConversation, SYSTEM_PROMPT } from "./prompt";
import { type RelatedEntry, relatedEntries, renderRelated } from "./related";

export type DistillOutcome =
  | "distilled"
  | "already_distilled"
  | "no_model"
  | "not_found"
  | "skipped"
  | "failed"
  /** Not sent: today's token budget would be exceeded; the session waits for the next day. */
  | "over_budget";

export type WrittenEntry = {
  id: string;
  /** "conflict": not written, waiting in the inbox (`id` is the conflict's). */
  status: "created" | "updated" | "duplicate" | "conflict";
  kind: string;
  title: string;
  /** The entry this one superseded. */
  supersedes?: string;
  /** The entry a conflict is about. */
  contradicts?: string;
  /** The inbox proposal (its id) that offers this entry to the repository's team lane. */
  proposed?: string;
};

export type DistillResult = {
  host: TranscriptHost;
  session: string;
  title: string;
  project: string | null;
  outcome: DistillOutcome;
  entries: WrittenEntry[];
  /** One line saying what happened and, for no-ops and failures, what to do. */
  message: string;
  /** "scrubbed 2 secrets (password, token)": redacted from the transcript before sending, and from the insights. */
  scrubbed?: string;
  /** For "failed": the kind of model error (auth, rate_limit, missing, ... stop a sweep: `stopsSweep`). */
  error?: ModelErrorKind;
};

/** A session ready to be sent: the exact text the model would receive. */
export type PreparedSession = {
  file: SessionFile;
  parsed: ParsedTranscript;
  project?: ProjectRef;
  conversation: PreparedConversation;
  /** Existing project entries listed after the conversation (what an insight may supersede). */
  related: RelatedEntry[];
  text: string;
};

/** The sweep stops retrying a session whose current content failed this often (ledger.ts). */
export { MAX_FAILED_ATTEMPTS } from "./ledger";

/** "no model" in one message: which model and why, then how to get one. */
export function noModelMessage(why: string): string {
  return `no model configured or found, nothing sent: ${why}.\n${CONFIGURE_MODEL_HINT}`;
}

/** A transcript of an agent CLI Coffer ran headless: its first user turn opens with RUN_MARKER. */
export function isCofferRun(parsed: ParsedTranscript): boolean {
  return (
    parsed.turns
      .find((t) => t.role === "user")
      ?.text.trimStart()
      .startsWith(RUN_MARKER) ?? false
  );
}

export function budgetChars(config: Config): number {
  return config["distill.budget_chars"];
}

export function prepareSession(file: SessionFile, config: Config): PreparedSession {
  const parsed = parseSessionFile(file);
  const project = projectForSession(parsed.cwd, parsed.origin);
  const conversation = prepareConversation(parsed.turns, { budget: budgetChars(config) });
  const related = project && conversation.turns.length ? relatedEntries(project, parsed.title, conversation.turns) : [];
  const text = renderConversation(conversation, { host: file.host, project: project?.label }) + renderRelated(related);
  return { file, parsed, project, conversation, related, text };
}

/**
 * Similarity (src/retrieval/embed/) at which an insight is about what an existing entry of the same kind
 * states (NEAR_SAME: a candidate to replace it, for a person to decide), and at which it says the
 * same thing again (NEAR_DUPLICATE). "Deploy on Fridays is forbidden" / "... allowed" is 0.85:
 * below NEAR_DUPLICATE, never dropped as a duplicate.
 */
const NEAR_SAME = 0.8;
const NEAR_DUPLICATE = 0.92;
/** Kinds whose newer statement replaces an older one; todos and notes about one thing are many. */
const REPLACEABLE = new Set(["decision", "convention", "preference", "fact", "gotcha"]);

/** The specifics of a text: numbers, versions, identifiers, paths (what a sentence model blurs). */
function specifics(text: string): Set<string> {
  return new Set(
    text
      .split(/[\s,;:()"'`]+/)
      .map((w) => w.replace(/^[^\w/.~-]+|[.!?]+$/g, ""))
      .filter((w) => /\d|[a-z][A-Z]|[_/]|\w\.\w/.test(w))
      .map((w) => w.toLowerCase()),
  );
}

/** How many specifics `text` has that `than` lacks. */
function newSpecifics(text: string, than: string): number {
  const known = specifics(than);
  return [...specifics(text)].filter((w) => !known.has(w)).length;
}

/**
 * Write insights as entries in the project scope (scrubbed once more: a model can echo anything).
 * An insight that contradicts an existing entry without settling it is not written: it goes to
 * the inbox for a person (status "conflict", the conflict's id). An insight marked `team` is
 * written here too and, when the project's checkout has a team lane, proposed for it through the
 * inbox (`proposed`): never written into `.coffer/`.
 */
export function writeInsights(
  project: ProjectRef,
  insights: Insight[],
  origin: { host: string; session: string },
  related: RelatedEntry[] = [],
): { entries: WrittenEntry[]; found: Found[] } {
  const store = openProjectStore(project);
  let found: Found[] = [];
  /**
   * Scrub the fields of an insight together (a value found in the body goes from the title too),
   * keywords before cleanKeywords lowercases them; keeping the count of what was found.
   */
  const clean = (texts: string[]) =>
    scrubTexts(texts).map((s) => {
      if (s.redactions) found = mergeFound(found, s.found);
      return s.text;
    });
  try {
    const entries = insights.map((ins): WrittenEntry => {
      const [title = "", body = "", ...rawKeywords] = clean([ins.title, ins.body, ...(ins.keywords ?? [])]);
      const keywords = cleanKeywords(rawKeywords);
      // Near in meaning to an entry of the same kind (entry vectors): the same statement again is
      // not written; one that may replace it ("Node 20 is required" / "Node 22 is required", or a
      // reversal) waits in the inbox like a contradiction, for a person to approve or drop.
      const near =
        ins.supersedes || ins.contradicts || !store.project || !REPLACEABLE.has(ins.kind)
          ? undefined
          : nearestEntries(store, vectorText({ title, tags: [], keywords, body }), [store.project.id], 1).find(
              (n) => n.sim >= NEAR_SAME && n.kind === ins.kind,
            );
      // The model reads numbers and names poorly: a restatement brings none the entry lacks.
      if (near && near.sim >= NEAR_DUPLICATE && newSpecifics(`${title} ${body}`, `${near.title} ${near.body}`) === 0)
        return { id: near.id, status: "duplicate", kind: near.kind, title: near.title };
      if (ins.contradicts || near) {
        const existing = near
          ? { id: near.id, kind: near.kind, title: near.title, body: near.body }
          : related.find((r) => r.id === ins.contradicts);
        if (existing) {
          const conflict: Conflict = {
            version: 1,
            kind: "conflict",
            id: ulid(),
            created: isoNow(),
            host: origin.host,
            session: origin.session,
            project: itemProject(project),
            existing,
            insight: { kind: ins.kind, title, body },
          };
          writeConflict(conflict);
          audit({ event: "conflict_found", actor: `agent:${origin.host}`, id: conflict.id, entry: existing.id });
          return { id: conflict.id, status: "conflict", kind: ins.kind, title, contradicts: existing.id };
        }
      }
      const input: RememberInput = {
        text: body,
        title,
        kind: ins.kind,
        ...(keywords.length ? { keywords } : {}),
        scope: "project",
        actor: `agent:${origin.host}`,
        source: "distill",
        origin_session: origin.session,
      };
      let res: RememberResult;
      try {
        res = remember(store, ins.supersedes ? { ...input, supersedes: ins.supersedes } : input);
      } catch (err) {
        // The entry to supersede was removed or superseded meanwhile: keep the insight anyway.
        if (!ins.supersedes || !(err instanceof CofferError)) throw err;
        res = remember(store, input);
      }
      const proposed =
        ins.team && store.team
          ? proposeForTeam(project, { id: res.id, title: res.entry.title, kind: res.entry.kind }, origin)
          : undefined;
      return {
        id: res.id,
        status: res.status,
        kind: res.entry.kind,
        title: res.entry.title,
        ...(res.superseded ? { supersedes: res.superseded } : {}),
        ...(proposed ? { proposed } : {}),
      };
    });
    return { entries, found };
  } finally {
    closeStore(store);
  }
}

/** What one model call cost, as the ledger records it. */
export type CallCost = {
  model: string;
  input_tokens: number;
  output_tokens: number;
  tokens_estimated: boolean;
  /** The price the provider stated (Claude Code reports one), in US dollars. */
  cost_usd?: number;
  duration_ms: number;
};

function callCost(
  model: ModelSettings,
  usage: Usage | undefined,
  started: number,
  answered?: string,
): CallCost | undefined {
  if (!usage) return undefined;
  return {
    model: modelLabel(model, answered),
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    tokens_estimated: usage.estimated,
    ...(usage.cost_usd !== undefined ? { cost_usd: usage.cost_usd } : {}),
    duration_ms: Math.max(0, Math.round(performance.now() - started)),
  };
}

export type Asked = { insights: Insight[]; dropped: number; cost: CallCost };

/**
 * Ask the model for insights about a rendered conversation (with the `related` entries it was
 * shown: only their ids may be superseded or contradicted). Throws ModelError (carrying the
 * call's cost in `cost` when the model answered but the answer was unusable).
 */
export async function askModel(model: ModelSettings, text: string, related: RelatedEntry[] = []): Promise<Asked> {
  const started = performance.now();
  let reply: Awaited<ReturnType<typeof complete>>;
  try {
    reply = await complete(model, SYSTEM_PROMPT, text);
  } catch (err) {
    if (err instanceof ModelError) (err as ModelError & { cost?: CallCost }).cost = callCost(model, err.usage, started);
    throw err;
  }
  const cost = callCost(model, reply.usage, started, reply.model)!;
  try {
    const parsed = parseInsights(reply.text);
    const shown = new Set(related.map((r) => r.id));
    return { insights: checkReferences(parsed.insights, shown), dropped: parsed.dropped, cost };
  } catch (err) {
    if (err instanceof ModelError) (err as ModelError & { cost?: CallCost }).cost = cost;
    throw err;
  }
}

/** The cost a failed call still had (the model answered something unusable), if any. */
export function costOf(err: ModelError): CallCost | undefined {
  return (err as ModelError & { cost?: CallCost }).cost;
}

export type DistillOptions = {
  config: Config;
  ledger?: Ledger;
  dryRun?: boolean;
  /** Distill even when the ledger says this content was done, and even over today's token budget. */
  force?: boolean;
  via?: string;
};

function summarize(all: WrittenEntry[], dropped: number): string {
  const conflicts = all.filter((e) => e.status === "conflict").length;
  const entries = all.filter((e) => e.status !== "conflict");
  const created = entries.filter((e) => e.status === "created").length;
  const dup = entries.length - created;
  const superseded = entries.filter((e) => e.supersedes).length;
  const proposed = entries.filter((e) => e.proposed).length;
  const parts = [`${entries.length} ${entries.length === 1 ? "entry" : "entries"}`];
  if (entries.length) parts.push(`${created} new, ${dup} already known`);
  if (superseded) parts.push(`${superseded} superseding an older entry`);
  if (conflicts)
    parts.push(`${conflicts} ${conflicts === 1 ? "contradiction" : "contradictions"} left in the inbox for you`);
  if (proposed) parts.push(`${proposed} proposed for the team lane (coffer inbox)`);
  if (dropped) parts.push(`${dropped} invalid ${dropped === 1 ? "item" : "items"} dropped`);
  if (entries.length) return `${parts[0]} (${parts.slice(1).join("; ")})`;
  const rest = parts.slice(1).join("; ");
  return conflicts ? `no new entries (${rest})` : `no insights worth keeping${rest ? ` (${rest})` : ""}`;
}

export async function distillFile(file: SessionFile, opts: DistillOptions): Promise<DistillResult> {
  const ledger = opts.ledger ?? readLedger();
  const base = {
    host: file.host,
    session: file.session_id,
    title: "",
    project: null as string | null,
    entries: [] as WrittenEntry[],
  };
  if (!opts.force && isDistilled(ledger, file)) {
    return { ...base, outcome: "already_distilled", message: "already distilled (ledger); nothing new since" };
  }
  let prepared: PreparedSession;
  try {
    prepared = prepareSession(file, opts.config);
  } catch (err) {
    if (err instanceof CofferError) throw err;
    return { ...base, outcome: "not_found", message: `cannot read the transcript: ${(err as Error).message}` };
  }
  const { parsed, project, conversation, related, text } = prepared;
  const result = { ...base, title: parsed.title, project: project?.label ?? null };
  if (isCofferRun(parsed)) {
    if (!opts.dryRun)
      appendLedger({
        host: file.host,
        session_id: file.session_id,
        sha256: sessionSha256(file),
        size: file.size,
        mtime_ms: file.mtimeMs,
        via: opts.via ?? "distill",
        outcome: "skipped",
        entries: 0,
        reason: "coffer_run",
      });
    return {
      ...result,
      outcome: "skipped",
      message: "Coffer's own distillation run (an agent CLI Coffer started): never distilled",
    };
  }
  if (parsed.subagent)
    return {
      ...result,
      outcome: "skipped",
      message: "a subagent's transcript (its parent session is distilled instead)",
    };
  if (!project) {
    const where = parsed.cwd
      ? `${parsed.cwd} is not inside a git repository`
      : "the transcript records no working directory";
    return {
      ...result,
      outcome: "skipped",
      message: `not a git project: ${where}; only project sessions are distilled`,
    };
  }
  const sha = sessionSha256(file);
  const record = {
    host: file.host,
    session_id: file.session_id,
    sha256: sha,
    size: file.size,
    mtime_ms: file.mtimeMs,
    via: opts.via ?? "distill",
  };
  if (!conversation.turns.length) {
    if (!opts.dryRun) appendLedger({ ...record, outcome: "distilled", entries: 0 });
    return {
      ...result,
      outcome: "skipped",
      message: "no conversation left after cleaning (only tool traffic or injected context)",
    };
  }
  const choice = resolveModel(opts.config);
  const model = choice.settings;
  if (opts.dryRun) {
    const to = model ? describeSettings(model) : `no model (${choice.why})`;
    return {
      ...result,
      outcome: "skipped",
      message: `dry run: would send ${text.length} characters (${conversation.turns.length} turns, ${scrubbedNote(conversation.found) ?? "nothing scrubbed"}) to ${to}`,
    };
  }
  if (!model) return { ...result, outcome: "no_model", message: noModelMessage(choice.why) };
  if (!opts.force) {
    const budget = checkBudget(opts.config, estimateSession(text));
    if (!budget.ok) return { ...result, outcome: "over_budget", message: budget.message };
  }
  try {
    const { insights, dropped, cost } = await askModel(model, text, related);
    const { entries, found } = writeInsights(project, insights, { host: file.host, session: file.session_id }, related);
    const scrubbed = scrubbedNote(mergeFound(conversation.found, found));
    appendLedger({ ...record, outcome: "distilled", entries: entries.length, ...cost });
    audit({
      event: "session_distilled",
      actor: `agent:${file.host}`,
      source: "distill",
      session: file.session_id,
      entries: entries.length,
    });
    return {
      ...result,
      outcome: "distilled",
      entries,
      message: summarize(entries, dropped) + (scrubbed ? `; ${scrubbed} before sending and writing` : ""),
      ...(scrubbed ? { scrubbed } : {}),
    };
  } catch (err) {
    if (!(err instanceof ModelError)) throw err;
    appendLedger({
      ...record,
      outcome: "failed",
      entries: 0,
      error: err.kind,
      model: modelLabel(model),
      ...costOf(err),
    });
    const tries = failedAttempts(readLedger(), file);
    const next = stopsSweep(err.kind)
      ? "nothing written; the session is left for the next sweep, which first waits a while after a failure like this"
      : tries < MAX_FAILED_ATTEMPTS
        ? "nothing written; the session is left for the next sweep"
        : `nothing written; failed ${tries} times, the sweep skips it until it changes (coffer distill run ${file.session_id} --force tries again)`;
    return { ...result, outcome: "failed", error: err.kind, message: `${err.message}; ${next}` };
  }
}
