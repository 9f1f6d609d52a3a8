/**
 * The JSON bodies `/api/v1` answers, defined once for both ends: the server's handlers build them
 * (`satisfies`), the web app (src/web/app, bundled for the browser) reads them. Types only, and
 * self-contained: the app type-checks this file without Node's or the store's types.
 */

/** Every failure: `code` is what a client branches on (serve/errors.ts maps each error's code to it). */
export type ErrorBody = { error: { code: string; message: string; details: unknown } };

// ---------------------------------------------------------------------------------------------
// Session and scopes

/** GET /api/v1/ui/session */
export type SessionInfo = {
  version: string;
  hosts: readonly string[];
  kinds: readonly string[];
  sources: readonly string[];
  body_max: number;
};

/** A scope the UI browses: global, a project, a team lane. */
export type Scope = {
  scope: string;
  label: string;
  origin?: string | null;
  entries: number;
  last_activity: string | null;
  rules_chars: number;
  handoffs: number;
};

/** GET /api/v1/projects */
export type Projects = { current: string | null; projects: Scope[] };

// ---------------------------------------------------------------------------------------------
// Entries

/** An entry in a list: GET /api/v1/ui/entries. */
export type EntryRow = {
  id: string;
  scope: string;
  scope_label: string;
  kind: string;
  title: string;
  tags: string[];
  actor: string;
  source: string;
  created: string;
  updated: string;
  chars: number;
  snippet: string;
  /** grep mode: the matching lines (at most 3), numbered from 1. */
  lines?: { line: number; text: string }[];
  status?: "superseded";
  superseded_by?: string | null;
  uncommitted?: boolean;
};

export type EntriesPage = { total: number; entries: EntryRow[]; took_ms: number };

/** GET /api/v1/ui/facets */
export type Facets = { tags: string[]; actors: string[]; sources: string[] };

/** The whole entry (the answer to add, edit and promote). */
export type EntryJson = {
  id: string;
  scope: string;
  /** A team entry git would call untracked or modified (absent outside a team lane). */
  uncommitted?: boolean;
  scope_label: string;
  kind: string;
  title: string;
  tags: string[];
  keywords?: string[];
  applies_to: string[];
  actor: string;
  source: string;
  origin_session?: string;
  imported_from?: string;
  status?: "superseded";
  superseded_by?: string;
  created: string;
  updated: string;
  text: string;
  file: string;
};

/** Whether the agents used an entry (issue 41): deliveries counted and judged from finished sessions. */
export type EntryUse = { delivered: number; judged: number; used: number; unknown: number; text: string };

/** GET /api/v1/ui/entries/{id} */
export type EntryDetail = EntryJson & {
  delivered_to: { host: string; session: string; at: string }[];
  /** Entries near it in meaning (entry vectors), best first. */
  related: { id: string; title: string; scope: string; similarity: number }[];
  use: EntryUse;
};

/** POST /api/v1/ui/entries, PATCH /api/v1/ui/entries/{id} */
export type EntrySaved = { status: "created" | "updated" | "duplicate"; scrubbed: string | null; entry: EntryJson };

/** POST /api/v1/ui/entries/{id}/promote */
export type Promoted = { status: string; file: string; entry: EntryJson | null };

/** DELETE /api/v1/ui/entries/{id}, POST .../restore */
export type Deleted = { status: "deleted"; id: string; scope: string; title: string };
export type Restored = { status: "restored"; id: string; scope: string; note?: string };

/** GET /api/v1/ui/trash */
export type Trash = {
  items: {
    id: string;
    title: string;
    kind: string;
    scope: string;
    scope_label: string;
    deleted: string;
    /** promote's personal copy: the checkout whose team lane holds the entry now */
    in_team?: string;
  }[];
};

/** POST /api/v1/ui/bulk */
export type BulkResult = {
  action: "delete" | "move" | "retag";
  results: { id: string; ok: boolean; error?: string }[];
};

// ---------------------------------------------------------------------------------------------
// Staleness

export type StaleReasonJson = { anchor: string; why: string; moved?: string; text: string };

/** GET /api/v1/ui/stale */
export type StaleList = {
  entries: {
    id: string;
    scope: string;
    scope_label: string;
    kind: string;
    title: string;
    updated: string;
    reasons: StaleReasonJson[];
  }[];
  checkouts: { scope: string; scope_label: string; root: string }[];
};

/** POST /api/v1/ui/stale/check */
export type StaleChecked = {
  projects: {
    scope: string;
    scope_label: string;
    root: string;
    checked: number;
    stale: number;
    kept: number;
    unchecked: number;
  }[];
};

/** POST /api/v1/ui/stale/{id}/keep */
export type StaleKept = { status: "kept"; id: string; scope: string; kept: StaleReasonJson[] };

// ---------------------------------------------------------------------------------------------
// Rules, handoffs, sessions

/** What a session start would send one host now. */
export type Bundle = { host: string; text: string; size: number; limit: number; unit: string };

/** GET /api/v1/ui/rules */
export type RulesView = { scope: string; text: string; cwd: string | null; cwds: string[]; bundles: Bundle[] };

/** PUT /api/v1/ui/rules */
export type RulesSaved = { scope: string; changed: boolean; scrubbed: string | null; text: string };

/** GET /api/v1/ui/handoffs */
export type Handoffs = {
  scope: string;
  handoffs: { branch: string | null; file: string; body: string; updated: string | null }[];
};

/** Why the hooks delivered an entry. */
export type DeliveryWhy = {
  terms?: { term: string; field: string; via?: string }[];
  similarity?: number;
  meaning?: boolean;
  path?: string;
  inherited?: boolean;
  card?: boolean;
};

/** `used`: whether the agent then used it, judged from the finished session's transcript (absent: not yet). */
export type SentEntry = {
  id: string;
  title: string | null;
  scope: string | null;
  why?: DeliveryWhy;
  used?: "used" | "unused" | "unknown";
};

/** One agent session the hooks delivered to. */
export type SessionRecordJson = {
  host: string;
  session: string;
  cwd: string;
  subagent: boolean;
  updated: string;
  bundle_sig: string | null;
  chars: number;
  delivered: (SentEntry & { at: string; chars: number })[];
  sent: (SentEntry & { at: string })[];
  events: { event: string; at: string; entries: number; chars: number; delivered: SentEntry[]; cards: SentEntry[] }[];
  project: { id: string; label: string } | null;
  /** The rules its session start sent, per lane, told by today's rules files (`unchanged`: the same bundle). */
  rules: { project: number; team: number; global: number; unchanged: boolean } | null;
};

/** GET /api/v1/ui/sessions */
export type Sessions = { sessions: SessionRecordJson[] };

// ---------------------------------------------------------------------------------------------
// Inbox and distillation

/** GET /api/v1/inbox: traces waiting for approval. */
export type InboxList = {
  items: {
    id: string;
    host: string;
    session: string;
    created: string;
    messages: number;
    redactions: number;
    removed_lines: number;
    title: string;
    project: string | null;
  }[];
};

/** GET /api/v1/ui/inbox/{id} */
export type InboxTrace = {
  id: string;
  host: string;
  session: string;
  title: string;
  project: string | null;
  created: string;
  text: string;
};

export type Insight = { kind: string; title: string; body: string };

/** POST /api/v1/ui/inbox/{id}/preview: the insights to confirm, or the model's answer when it needs none. */
export type InboxPreview =
  | { status: "preview"; preview: string; trace: string; insights: Insight[] }
  | { status: "done"; result: unknown };

/** POST /api/v1/ui/inbox/previews/{pid}/{decision} */
export type PreviewDecided = { status: string; trace: string; entries: string[]; scrubbed?: string };

type ProjectRef = { id: string; label: string; origin?: string };

/** A contradiction distillation left for a person. */
export type InboxConflict = {
  id: string;
  created: string;
  host: string;
  session: string;
  project: ProjectRef;
  existing: { id: string; kind: string; title: string; body: string };
  insight: { kind: string; title: string; body: string };
};

/** GET /api/v1/ui/conflicts */
export type InboxConflicts = { conflicts: InboxConflict[] };

/** An entry distillation proposed for a repository's team lane. */
export type TeamProposal = {
  id: string;
  created: string;
  host: string;
  session: string;
  project: ProjectRef;
  entry: { id: string; title: string; kind: string };
};

/** GET /api/v1/ui/team-proposals */
export type TeamProposals = { proposals: TeamProposal[] };

/** POST /api/v1/ui/conflicts/{id}/{decision}, /api/v1/ui/team-proposals/{id}/{decision} */
export type Settled = { status: string; entry?: string; superseded?: string };

/** GET /api/v1/ui/sync-conflicts: the older copy sync kept of an entry edited on two machines. */
export type SyncConflicts = {
  conflicts: { scope: string; scope_label: string; copy: string; kept: string; title: string; updated: string }[];
};

/** GET /api/v1/ui/unused: entries delivered often and never used. */
export type UnusedOffers = {
  min: number;
  entries: { id: string; scope: string; scope_label: string; kind: string; title: string; judged: number }[];
};

/** Today's distillation spend against distill.daily_token_budget (GET /api/v1/ui/budget). */
export type Budget = {
  day: string;
  budget: number;
  spent: number;
  estimated: number;
  remaining: number | null;
  paused: boolean;
  paused_at: string | null;
  needed: number | null;
  resumes_at: string | null;
  summary: string;
  model?: string | null;
};

/** GET /api/v1/ui/transcripts */
export type Transcripts = {
  host: string;
  transcripts: {
    host: string;
    session_id: string;
    project: string | null;
    messages: number;
    last_activity: string | null;
    status: string;
    title: string;
    error: string | null;
  }[];
};

/** POST /api/v1/agents/{host}/transcripts/distill */
export type DistillResults = { results: { outcome: string; message: string; entries: string[] }[] };

/** GET /api/v1/ui/model */
export type ModelInfo = {
  source: "config" | "linked" | "off" | "none";
  why: string;
  model: {
    provider: string;
    model: string | null;
    label: string;
    /** Agent CLIs: the command, its path (null: not found), whose plan pays. */
    command?: string;
    cli?: string | null;
    plan?: string;
    base_url?: string;
    key_env?: string | null;
    key_set?: boolean | null;
  } | null;
};

/** GET /api/v1/ui/stats */
export type Stats = {
  since: string;
  until: string;
  days: string[];
  /** The window shown, in days (the server's default when none was asked for). */
  window_days: number;
  distill: {
    calls: number;
    input_tokens: number;
    output_tokens: number;
    tokens: number;
    estimated_tokens: number;
    by_model: { model: string; calls: number; input_tokens: number; output_tokens: number; estimated_tokens: number }[];
    per_day: number[];
    budget: Budget;
  };
  sessions: { distilled: number; failed: number; pending: number };
  hooks: {
    events: number;
    chars: number;
    tokens: number;
    by_host: { host: string; events: number; chars: number; tokens: number }[];
    by_event: { event: string; events: number; chars: number; tokens: number }[];
    per_day: number[];
    deliveries: number;
    counted_since: string | null;
  };
  entries: {
    added: Record<string, number>;
    added_total: number;
    per_day: number[];
    most_delivered: { id: string; scope: string | null; title: string | null; deliveries: number }[];
    never_delivered: { days: number; total: number; entries: { id: string; title: string; created: string }[] };
  };
  /** Whether the agents used what was delivered (all time): judged deliveries and used ones. */
  use?: {
    judged: number;
    used: number;
    by_kind: { kind: string; judged: number; used: number }[];
    entries: { id: string; scope: string | null; title: string | null; judged: number; used: number }[];
    unused: { id: string; title: string; judged: number }[];
  };
};

// ---------------------------------------------------------------------------------------------
// Health

/** A linked host's hooks seen firing: the last event, and this week's injections. */
export type HooksSeen = {
  linked_at: string | null;
  last: { event: string; at: string; project: string | null } | null;
  injections_7d: number;
};

/** GET /api/v1/ui/health */
export type Health = {
  counts: { entries: number; projects: number; inbox: number; conflicts: number; team: number };
  budget: Budget | null;
  index: { bytes: number };
  doctor: {
    binary: string;
    hosts: {
      host: string;
      scope: string;
      status: string;
      events: string[];
      missing_events: string[];
      mcp: boolean;
      hooks_seen: HooksSeen | null;
      notes: string[];
      problems: { message: string; fix: string }[];
      warnings: { message: string; fix: string }[];
    }[];
    store: { index: string; model: string | null; model_why: string; notes: string[] };
    problems: { where: string; message: string; fix: string }[];
    warnings: { where: string; message: string; fix: string }[];
  };
  sync: { summary: string } | null;
  audit: Record<string, unknown>[];
};
