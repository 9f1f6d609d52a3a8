/**
 * The seven memory tools, in one table shared by MCP over stdio, MCP over HTTP and the HTTP API:
 * a valibot schema per tool (validated here, handed to MCP clients as JSON Schema), its output
 * schema (the answer's `structuredContent`, declared as `outputSchema`) and a handler
 * that calls the store. Handlers throw `ToolError` (or the store's CofferError) for anything the
 * caller can fix; the surfaces turn those into `isError` results or HTTP error envelopes.
 */
import * as v from "valibot";
import { CofferError, type CofferErrorCode } from "../lib/errors";
import { storageError } from "../lib/storage-error";
import { grep, recall } from "../retrieval/search";
import {
  activeScopes,
  type Entry,
  entryMeta,
  findEntry,
  forget,
  GLOBAL,
  getHandoff,
  handoffFreshness,
  isAbsoluteDir,
  KEYWORD_MAX_CHARS,
  KEYWORDS_MAX,
  KINDS,
  listEntries,
  remember,
  type ScopeKey,
  type Source,
  type Store,
  setHandoff,
  withOpenStore,
} from "../store";

/**
 * An error the caller can fix, worded for an agent (no CLI hints): a CofferError, so its code
 * picks the HTTP status as any other's does (serve/errors.ts).
 */
export class ToolError extends CofferError {
  constructor(message: string, code: CofferErrorCode = "invalid") {
    super(message, 1, undefined, code);
    this.name = "ToolError";
  }
}

/** Who is calling and from where: the surface fills this in per call. */
export type ToolContext = {
  /** Project scope comes from here unless the call passes `cwd`. */
  cwd: string;
  /** `agent:<client name>` for MCP, `user` (or the body's actor) for HTTP. */
  actor: string;
  source: Source;
};

// ---------------------------------------------------------------------------------------------
// Schemas: short descriptions, since every agent pays for them in tokens on every session.

const scope = v.pipe(
  v.picklist(["project", "team", "global"], 'scope must be "project", "team" or "global"'),
  v.description("project, team (repo's .coffer/) or global"),
);
type ScopeArg = "project" | "team" | "global";
const cwd = v.pipe(v.string("cwd must be a string"), v.description("Absolute project path; default: server cwd"));
const id = v.pipe(
  v.string("id must be a string"),
  v.trim(),
  v.minLength(1, "id is empty; pass an entry id from coffer__recall or coffer__list"),
  v.maxLength(64, "id is too long (entry ids are 26 characters)"),
  v.regex(
    /^[0-9A-HJKMNP-TV-Z]+$/i,
    "id must be an entry id (26 letters and digits, or the 8 in [brackets] in injected memory) from coffer__recall or coffer__list",
  ),
);
const stringList = (name: string, what: string) =>
  v.pipe(
    v.array(
      v.pipe(
        v.string(`${name} must be a list of strings`),
        v.maxLength(200, `each ${name} item is at most 200 characters`),
      ),
      `${name} must be a list of strings`,
    ),
    v.maxLength(32, `${name} has more than 32 items`),
    v.description(what),
  );

export const SCHEMAS = {
  recall: v.strictObject({
    query: v.pipe(
      v.string("query must be a string"),
      v.minLength(1, "query is empty; pass a few keywords"),
      v.maxLength(2000, "query is longer than 2000 characters"),
      v.description("Keywords (grep mode: literal text or /regex/)"),
    ),
    scope: v.optional(v.pipe(scope, v.description("Default: all, project first"))),
    top_k: v.optional(
      v.pipe(
        v.number("top_k must be a number"),
        v.integer("top_k must be an integer"),
        v.minValue(1, "top_k must be at least 1"),
        v.maxValue(20, "top_k must be at most 20"),
        v.description("Default 5"),
      ),
    ),
    mode: v.optional(
      v.pipe(v.picklist(["keyword", "grep"], 'mode must be "keyword" or "grep"'), v.description("Default keyword")),
    ),
    explain: v.optional(
      v.pipe(v.boolean("explain must be true or false"), v.description("Per hit: which terms matched, where, how")),
    ),
    cwd: v.optional(cwd),
  }),
  remember: v.strictObject({
    text: v.pipe(
      v.string("text must be a string"),
      v.minLength(1, "text is empty; pass the memory text"),
      v.description("The memory, self-contained"),
    ),
    title: v.optional(v.pipe(v.string("title must be a string"), v.description("Default: first line"))),
    kind: v.optional(
      v.pipe(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`), v.description("Default note")),
    ),
    tags: v.optional(stringList("tags", "Tags")),
    keywords: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string("keywords must be a list of strings"),
            v.maxLength(KEYWORD_MAX_CHARS, `each keyword is at most ${KEYWORD_MAX_CHARS} characters`),
          ),
          "keywords must be a list of strings",
        ),
        v.maxLength(KEYWORDS_MAX, `keywords has more than ${KEYWORDS_MAX} items`),
        v.description(
          `Up to ${KEYWORDS_MAX} short phrases someone would ask with that the text lacks: synonyms, the category of tools named (database for Postgres), the question it answers`,
        ),
      ),
    ),
    applies_to: v.optional(stringList("applies_to", "Globs relative to the project root")),
    scope: v.optional(v.pipe(scope, v.description("Default project (global outside a repo)"))),
    id: v.optional(v.pipe(id, v.description("Rewrite this entry instead of adding one"))),
    supersedes: v.optional(
      v.pipe(
        id,
        v.description("An entry this one replaces (it is kept, marked superseded, and no longer recalled or injected)"),
      ),
    ),
    cwd: v.optional(cwd),
  }),
  read: v.strictObject({
    id,
    scope: v.optional(v.pipe(scope, v.description("Default: all"))),
    cwd: v.optional(cwd),
  }),
  list: v.strictObject({
    scope: v.optional(v.pipe(scope, v.description("Default: all"))),
    kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
    limit: v.optional(
      v.pipe(
        v.number("limit must be a number"),
        v.integer("limit must be an integer"),
        v.minValue(1, "limit must be at least 1"),
        v.maxValue(200, "limit must be at most 200"),
        v.description("Default 50"),
      ),
    ),
    cwd: v.optional(cwd),
  }),
  forget: v.strictObject({
    id,
    scope: v.optional(v.pipe(scope, v.description("Default: all"))),
    cwd: v.optional(cwd),
  }),
  set_handoff: v.strictObject({
    body: v.pipe(
      v.string("body must be a string"),
      v.minLength(1, "body is empty; say where the work stands and what comes next"),
      v.description("Where work stands, what is next"),
    ),
    cwd: v.optional(cwd),
  }),
  resume: v.strictObject({ cwd: v.optional(cwd) }),
} as const;

export type ToolName = keyof typeof SCHEMAS;
type Args<N extends ToolName> = v.InferOutput<(typeof SCHEMAS)[N]>;

// ---------------------------------------------------------------------------------------------
// Outputs: what each tool answers, as `structuredContent` (and the same JSON as text). Handed to
// MCP clients as `outputSchema`; the handlers' return types come from here, so they cannot drift.

const stringArray = v.array(v.string());
const explainOut = v.object({
  matched: v.number(),
  of: v.number(),
  terms: v.array(
    v.object({
      term: v.string(),
      field: v.string(),
      via: v.optional(v.string()),
      source: v.optional(v.string()),
      stemmed: v.optional(v.boolean()),
    }),
  ),
  missing: stringArray,
  title: v.optional(v.picklist(["exact", "all"])),
  answers: v.optional(v.string()),
  score: v.number(),
  bm25: v.number(),
  similarity: v.optional(v.number()),
});

const OUTPUTS = {
  recall: v.object({
    hits: v.array(
      v.object({
        id: v.string(),
        title: v.string(),
        text: v.string(),
        kind: v.string(),
        scope: v.string(),
        score: v.number(),
        updated: v.string(),
        explain: v.optional(explainOut),
      }),
    ),
  }),
  remember: v.object({
    id: v.string(),
    scope: v.string(),
    status: v.picklist(["created", "updated", "duplicate"]),
    scrubbed: v.optional(v.string()),
    superseded: v.optional(v.string()),
  }),
  read: v.object({
    id: v.string(),
    kind: v.string(),
    title: v.string(),
    tags: stringArray,
    keywords: v.optional(stringArray),
    applies_to: stringArray,
    actor: v.string(),
    source: v.string(),
    origin_session: v.optional(v.string()),
    imported_from: v.optional(v.string()),
    status: v.optional(v.literal("superseded")),
    superseded_by: v.optional(v.string()),
    created: v.string(),
    updated: v.string(),
    extra: v.optional(v.record(v.string(), v.unknown())),
    scope: v.string(),
    text: v.string(),
  }),
  list: v.object({
    total: v.number(),
    entries: v.array(v.object({ id: v.string(), title: v.string(), kind: v.string(), updated: v.string() })),
  }),
  forget: v.object({ id: v.string(), status: v.literal("deleted") }),
  set_handoff: v.object({
    status: v.literal("saved"),
    branch: v.nullable(v.string()),
    scope: v.literal("project"),
    scrubbed: v.optional(v.string()),
  }),
  resume: v.variant("found", [
    v.object({ found: v.literal(false) }),
    v.object({
      found: v.literal(true),
      branch: v.nullable(v.string()),
      body: v.string(),
      updated: v.string(),
      note: v.string(),
      stale: v.boolean(),
    }),
  ]),
} as const satisfies Record<ToolName, v.GenericSchema>;

type Output<N extends ToolName> = v.InferOutput<(typeof OUTPUTS)[N]>;

const DESCRIPTIONS: Record<ToolName, string> = {
  recall: "Search shared memory (this project, then global) for facts, decisions, gotchas, conventions.",
  remember:
    "Save a durable fact, decision, gotcha or convention. keywords: other words to ask for it by; supersedes: what it voids",
  read: "Read one memory entry in full.",
  list: "List memory entries, newest first.",
  forget: "Forget a memory entry: it moves to the trash for 30 days (the user can `coffer restore <id>` it).",
  set_handoff: "Save where work stands on this project + git branch (replaces the previous handoff).",
  resume: "Get this project + branch's saved handoff. Call first when asked to continue prior work.",
};

// ---------------------------------------------------------------------------------------------
// Shapes

export type EntryView = Omit<Entry, "body" | "origin_session"> & {
  scope: string;
  text: string;
  origin_session?: string;
};

/** The whole entry as tools and the HTTP API return it (`text` = the Markdown body). */
export function entryView(entry: Entry, scopeName: string): EntryView {
  const { body, origin_session, ...rest } = entry;
  return { ...rest, scope: scopeName, ...(origin_session ? { origin_session } : {}), text: body };
}

// ---------------------------------------------------------------------------------------------
// Store access

/**
 * Open the store for one call (so changes by other processes are seen), run `fn`, close it.
 * Searches compare the whole scope with its files first ("deep", like the CLI); writes and reads
 * by id need no pass of their own: remember() refreshes the scope it writes, and lookups by id
 * go to the entry's file, which is the truth. A busy index is retried by the store without
 * blocking the event loop (withOpenStore), never surfaced.
 */
export function withStore<T>(dir: string, freshness: "deep" | "shallow" | "none", fn: (store: Store) => T): Promise<T> {
  return withOpenStore({ cwd: dir, freshness, notice: (m) => process.stderr.write(`coffer: ${m}\n`) }, fn);
}

function callDir(ctx: ToolContext, cwdArg: string | undefined): string {
  if (cwdArg === undefined) return ctx.cwd;
  if (!isAbsoluteDir(cwdArg))
    throw new ToolError(`cwd must be an absolute path of an existing directory (got ${JSON.stringify(cwdArg)})`);
  return cwdArg;
}

function requireProjectFor(store: Store, what: string): void {
  if (!store.project) {
    throw new ToolError(
      `${what} needs a git project, but ${store.cwd} is not inside a repository; pass cwd (the project's absolute path)${what.startsWith("scope ") ? ' or scope "global"' : ""}`,
    );
  }
}

/** A named scope the call needs (project or team): its project, and for team the lane being on. */
function requireScope(store: Store, scopeArg: ScopeArg | undefined): void {
  if (scopeArg === "project" || scopeArg === "team") requireProjectFor(store, `scope ${scopeArg}`);
  if (scopeArg === "team" && !store.team)
    throw new ToolError("the team lane is turned off here (team.read = off in the user's config)");
}

/** The scope key of a hit's scope name (grep hits carry the name). */
function keyOf(store: Store, name: string): ScopeKey {
  return name === "global" ? GLOBAL : name === "team" ? store.team!.key : store.project!.id;
}

/**
 * The caller's scopes: its project (from cwd) and global, or the one it names. Reads, rewrites and
 * deletes by id never reach another project's entries (pass that project's cwd to reach them).
 */
function callerScopes(store: Store, scopeArg: ScopeArg | undefined): ScopeKey[] {
  requireScope(store, scopeArg);
  if (scopeArg) return [keyOf(store, scopeArg)];
  return activeScopes(store);
}

function locate(store: Store, idArg: string, scopeArg?: ScopeArg, allowBroken = false) {
  const hit = findEntry(store, idArg, { scopes: callerScopes(store, scopeArg), allowBroken });
  if (!hit)
    throw new ToolError(
      `no entry with id "${idArg}" in ${scopeArg ? `the ${scopeArg} scope` : "this project or global"}; find ids with coffer__recall or coffer__list`,
      "not_found",
    );
  return hit;
}

// ---------------------------------------------------------------------------------------------
// Handlers

type RecallHit = Output<"recall">["hits"][number];

function recallTool(a: Args<"recall">, ctx: ToolContext): Promise<Output<"recall">> {
  return withStore(callDir(ctx, a.cwd), "deep", (store) => {
    requireScope(store, a.scope);
    const limit = a.top_k ?? 5;
    if (a.mode === "grep") {
      // One hit per entry: its matching lines (numbered) as text, the number of matches as score.
      const byId = new Map<string, RecallHit>();
      for (const g of grep(store, a.query, { scope: a.scope, limit: 1000 })) {
        const line = `${g.line}: ${g.text}`;
        const prev = byId.get(g.id);
        if (prev) {
          prev.text += `\n${line}`;
          prev.score++;
          continue;
        }
        if (byId.size >= limit) continue;
        const key = keyOf(store, g.scope);
        const meta = entryMeta(store, key, g.id);
        byId.set(g.id, {
          id: g.id,
          title: g.title,
          text: line,
          kind: meta?.kind ?? "note",
          scope: g.scope,
          score: 1,
          updated: meta?.updated ?? "",
        });
      }
      return { hits: [...byId.values()] };
    }
    const hits = recall(store, a.query, { scope: a.scope, limit, explain: a.explain });
    return { hits: hits.map(({ entry: _e, ...h }) => h) };
  });
}

function rememberTool(a: Args<"remember">, ctx: ToolContext): Promise<Output<"remember">> {
  return withStore(callDir(ctx, a.cwd), "none", (store) => {
    requireScope(store, a.scope);
    const target = a.id ? locate(store, a.id).entry.id : undefined;
    const old = a.supersedes ? locate(store, a.supersedes).entry.id : undefined;
    const res = remember(store, { ...a, id: target, supersedes: old, actor: ctx.actor, source: ctx.source });
    return {
      id: res.id,
      scope: res.scope,
      status: res.status,
      ...(res.scrubbed ? { scrubbed: res.scrubbed } : {}),
      ...(res.superseded ? { superseded: res.superseded } : {}),
    };
  });
}

function readTool(a: Args<"read">, ctx: ToolContext): Promise<Output<"read">> {
  return withStore(callDir(ctx, a.cwd), "none", (store) => {
    const hit = locate(store, a.id, a.scope);
    return entryView(hit.entry, hit.scopeName);
  });
}

function listTool(a: Args<"list">, ctx: ToolContext): Promise<Output<"list">> {
  return withStore(callDir(ctx, a.cwd), "deep", (store) => {
    requireScope(store, a.scope);
    const res = listEntries(store, { scope: a.scope, kind: a.kind, limit: a.limit ?? 50 });
    return {
      total: res.total,
      entries: res.entries.map((e) => ({ id: e.id, title: e.title, kind: e.kind, updated: e.updated })),
    };
  });
}

function forgetTool(a: Args<"forget">, ctx: ToolContext): Promise<Output<"forget">> {
  return withStore(callDir(ctx, a.cwd), "none", (store) => {
    const hit = locate(store, a.id, a.scope, true);
    const res = forget(store, hit.entry.id, ctx.actor, { scopes: [hit.scope] });
    return { id: res.id, status: res.status };
  });
}

function setHandoffTool(a: Args<"set_handoff">, ctx: ToolContext): Promise<Output<"set_handoff">> {
  return withStore(callDir(ctx, a.cwd), "none", (store) => {
    requireProjectFor(store, "a handoff");
    const res = setHandoff(store, a.body, ctx.actor);
    return {
      status: res.status,
      branch: res.branch,
      scope: res.scope,
      ...(res.scrubbed ? { scrubbed: res.scrubbed } : {}),
    };
  });
}

function resumeTool(a: Args<"resume">, ctx: ToolContext): Promise<Output<"resume">> {
  return withStore(callDir(ctx, a.cwd), "none", (store) => {
    requireProjectFor(store, "a handoff");
    const h = getHandoff(store);
    if (!h || !store.project) return { found: false };
    const f = handoffFreshness(store.project, h, { files: true });
    return { found: true, branch: h.branch, body: h.body, updated: h.updated, note: f.note, stale: f.stale };
  });
}

const HANDLERS: { [N in ToolName]: (a: Args<N>, ctx: ToolContext) => Promise<Output<N>> } = {
  recall: recallTool,
  remember: rememberTool,
  read: readTool,
  list: listTool,
  forget: forgetTool,
  set_handoff: setHandoffTool,
  resume: resumeTool,
};

export const TOOL_PREFIX = "coffer__";
export const TOOL_NAMES = Object.keys(SCHEMAS) as ToolName[];

// ---------------------------------------------------------------------------------------------
// Validation and dispatch

type Issue = v.BaseIssue<unknown>;

/** One clause per problem, each naming the argument (messages that already start with it are not prefixed again). */
export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join(".");
      if (issue.type === "strict_object" && path)
        return issue.expected === "never" ? `unknown argument "${path}"` : `${path} is required`;
      if (issue.type === "strict_object") return "arguments must be a JSON object";
      const msg = issue.message;
      const head = path?.split(".")[0];
      return path && head && !msg.startsWith(head) ? `${path}: ${msg}` : msg;
    })
    .join("; ");
}

/** Validate raw arguments against a tool's schema; throws a ToolError saying what to fix. */
export function parseArgs<N extends ToolName>(name: N, raw: unknown): Args<N> {
  const res = v.safeParse(SCHEMAS[name], raw ?? {});
  if (!res.success) {
    const allowed = Object.keys(SCHEMAS[name].entries).join(", ");
    const unknown = res.issues.some((i) => i.type === "strict_object" && i.path?.length && i.expected === "never");
    throw new ToolError(`${describeIssues(res.issues)}${unknown ? ` (allowed: ${allowed})` : ""}`);
  }
  return res.output as Args<N>;
}

/** Validate and run one tool. Errors a caller can fix come back as ToolError (CofferErrors are converted). */
export async function runTool(name: ToolName, raw: unknown, ctx: ToolContext): Promise<Record<string, unknown>> {
  const args = parseArgs(name, raw);
  try {
    return await (HANDLERS[name] as (a: unknown, c: ToolContext) => Promise<Record<string, unknown>>)(args, ctx);
  } catch (caught) {
    if (caught instanceof ToolError) throw caught;
    const err = storageError(caught) ?? caught; // read-only, full or locked store: an answer, not a crash
    if (err instanceof CofferError) {
      const notFound = err.code === "not_found";
      // CLI hints name commands and flags; agents get the tool-level message instead.
      const hint = err.hint && !/`coffer |--\w/.test(err.hint) ? ` ${err.hint}` : "";
      throw new ToolError(
        notFound
          ? `${err.message}; find ids with coffer__recall or coffer__list`
          : `${err.message}${hint ? `.${hint}` : ""}`,
        err.code,
      );
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// MCP tool list

export type ToolDefinition = {
  name: string;
  description: string;
  inputSchema: { type: "object"; [k: string]: unknown };
  outputSchema: { type: "object"; [k: string]: unknown };
};

let cachedDefinitions: ToolDefinition[] | undefined;

/** The MCP `tools/list` answer, built once from the valibot schemas. */
export async function toolDefinitions(): Promise<ToolDefinition[]> {
  if (cachedDefinitions) return cachedDefinitions;
  const { toJsonSchema } = await import("@valibot/to-json-schema");
  const jsonSchema = (schema: v.GenericSchema, typeMode: "input" | "output") => {
    const { $schema: _s, ...rest } = toJsonSchema(schema, { errorMode: "ignore", typeMode }) as Record<string, unknown>;
    // MCP wants an object schema at the top; resume's two shapes (found or not) are both objects.
    return { ...rest, type: "object" as const };
  };
  cachedDefinitions = TOOL_NAMES.map((name) => ({
    name: TOOL_PREFIX + name,
    description: DESCRIPTIONS[name],
    inputSchema: jsonSchema(SCHEMAS[name], "input"),
    outputSchema: jsonSchema(OUTPUTS[name], "output"),
  }));
  return cachedDefinitions;
}

export function toolNameOf(mcpName: string): ToolName | undefined {
  if (!mcpName.startsWith(TOOL_PREFIX)) return undefined;
  const name = mcpName.slice(TOOL_PREFIX.length);
  return (TOOL_NAMES as string[]).includes(name) ? (name as ToolName) : undefined;
}
