/**
 * The `/api/v1` routes: thin adapters from HTTP to the tool table, the store and the
 * hooks/distillation interfaces. Every input is validated with valibot; every failure is an
 * HttpError, rendered by the server as `{error: {code, message, details}}`.
 */
import { isAbsolute } from "node:path";
import * as v from "valibot";
import { HOSTS, type Host } from "../config/config";
import { entryView, runTool, type ToolContext, withStore } from "../mcp/tools";
import {
  activeScopes,
  findEntry,
  isAbsoluteDir,
  KINDS,
  listEntries,
  remember,
  ruleScopes,
  scopeKey,
  scopeName,
  shownRules,
  writeRules,
} from "../store";
import type { DistillResults, InboxList } from "./api-types";
import { readJsonBody } from "./body";
import { badRequest, HttpError, json, notFound, toHttpError } from "./errors";
import { intString, type Params, router } from "./router";

export type ApiContext = { cwd: string; log: (m: string) => void };

const { route, match } = router<ApiContext>();

/** Dispatch one `/api/...` request: 404 for an unknown path, 405 (with Allow) for a known one. */
export async function handleApi(req: Request, url: URL, ctx: ApiContext): Promise<Response> {
  const hit = match(req.method, url.pathname);
  if ("handler" in hit) {
    try {
      return await hit.handler(req, url, hit.params, ctx);
    } catch (err) {
      throw toHttpError(err);
    }
  }
  const { allowed } = hit;
  if (allowed.length) {
    const allow = allowed.join(", ");
    throw new HttpError(
      405,
      "method_not_allowed",
      `${req.method} is not allowed on ${url.pathname} (allowed: ${allow})`,
      { allowed },
      { allow },
    );
  }
  throw notFound(`no route ${req.method} ${url.pathname}`, {
    see: "GET /api/v1/entries, POST /api/v1/recall, GET /api/v1/rules, ...",
  });
}

// ---------------------------------------------------------------------------------------------
// Validation helpers

function parse<S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const res = v.safeParse(schema, input);
  if (!res.success) {
    const issues = res.issues.map((i) => ({
      path: i.path?.map((p) => String(p.key)).join(".") || null,
      message: i.message,
    }));
    throw badRequest(
      `invalid ${what}: ${issues.map((i) => (i.path && !i.message.startsWith(i.path) ? `${i.path}: ${i.message}` : i.message)).join("; ")}`,
      { issues },
    );
  }
  return res.output;
}

const SAFE_ID = /^[A-Za-z0-9_.-]{1,128}$/;

function hostParam(params: Params): Host {
  const host = params.host!;
  if (!(HOSTS as readonly string[]).includes(host)) throw notFound(`unknown agent host "${host}"`, { allowed: HOSTS });
  return host as Host;
}

/** Project scope for a request: `cwd` (query or body) when given — absolute and existing — else the server's. */
function requestDir(ctx: ApiContext, given: unknown): string {
  if (given === undefined || given === null || given === "") return ctx.cwd;
  if (typeof given !== "string" || !isAbsoluteDir(given))
    throw badRequest(`cwd must be an absolute path of an existing directory (got ${JSON.stringify(given)})`);
  return given;
}

function toolCtx(ctx: ApiContext): ToolContext {
  return { cwd: ctx.cwd, actor: "user", source: "http" };
}

const scopeQuery = v.picklist(["project", "team", "global"], 'scope must be "project", "team" or "global"');
const query = (url: URL) => Object.fromEntries(url.searchParams);

// ---------------------------------------------------------------------------------------------
// Agents: session context, session end, transcripts

route("GET", "/api/v1/agents/{host}/session-context", async (_req, url, params) => {
  const host = hostParam(params);
  const cwd = url.searchParams.get("cwd");
  if (!cwd) throw badRequest("cwd is required, e.g. ?cwd=/home/me/project");
  if (!isAbsoluteDir(cwd))
    throw badRequest(`cwd must be an absolute path of an existing directory (got ${JSON.stringify(cwd)})`);
  const { sessionStartContext } = await import("../hooks/context");
  return json({ additional_context: await sessionStartContext(host, cwd) });
});

const endBody = v.strictObject({
  transcript_path: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(4096),
      v.check((p) => isAbsolute(p), "transcript_path must be absolute"),
    ),
  ),
});

route("POST", "/api/v1/agents/{host}/sessions/{session_id}/end", async (req, _url, params) => {
  const host = hostParam(params);
  const session = params.session_id!;
  if (!SAFE_ID.test(session)) throw badRequest("session_id may only contain letters, digits, '_', '.', '-' (1..128)");
  const body = parse(endBody, await readJsonBody(req), "body");
  const { endSession } = await import("./sessions");
  return json({ outcome: await endSession(host, session, body.transcript_path) });
});

route("GET", "/api/v1/agents/{host}/transcripts", async (_req, url, params) => {
  const host = hostParam(params);
  const q = parse(v.object({ limit: v.optional(intString("limit", 1, 1000)) }), query(url), "query");
  const { listTranscripts } = await import("./sessions");
  return json({ transcripts: await listTranscripts(host, q.limit ?? 50) });
});

const distillBody = v.strictObject({
  sessions: v.pipe(
    v.array(
      v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
      "sessions must be a list of session ids or transcript paths",
    ),
    v.minLength(1, "sessions is empty; pass at least one session id or path"),
    v.maxLength(100, "at most 100 sessions per request"),
  ),
});

route("POST", "/api/v1/agents/{host}/transcripts/distill", async (req, _url, params) => {
  const host = hostParam(params);
  const body = parse(distillBody, await readJsonBody(req), "body");
  const { distillTranscripts } = await import("./sessions");
  return json<DistillResults>({ results: await distillTranscripts(host, body.sessions) });
});

// ---------------------------------------------------------------------------------------------
// Entries

const listQuery = v.object({
  scope: v.optional(scopeQuery),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  limit: v.optional(intString("limit", 1, 200)),
  offset: v.optional(intString("offset", 0, 1_000_000)),
  cwd: v.optional(v.string()),
});

route("GET", "/api/v1/entries", (_req, url, _params, ctx) => {
  const q = parse(listQuery, query(url), "query");
  return withStore(requestDir(ctx, q.cwd), "deep", (store) => {
    if (q.scope) scopeKey(store, q.scope);
    const res = listEntries(store, { scope: q.scope, kind: q.kind, limit: q.limit ?? 50, offset: q.offset ?? 0 });
    return json({ total: res.total, entries: res.entries.map((e) => entryView(e, e.scope)) });
  });
});

route("POST", "/api/v1/entries", async (req, _url, _params, ctx) => {
  const body = (await readJsonBody(req)) as Record<string, unknown>;
  const dir = requestDir(ctx, body?.cwd);
  const res = (await runTool("remember", body, toolCtx(ctx))) as { id: string; scope: string; status: string };
  const entry = await runTool("read", { id: res.id, cwd: dir }, toolCtx(ctx));
  return json({ ...res, entry }, res.status === "created" ? 201 : 200);
});

route("GET", "/api/v1/entries/{id}", async (_req, url, params, ctx) => {
  const dir = requestDir(ctx, url.searchParams.get("cwd"));
  const scope = url.searchParams.get("scope") ?? undefined;
  return json(await runTool("read", { id: params.id, cwd: dir, ...(scope ? { scope } : {}) }, toolCtx(ctx)));
});

const patchBody = v.strictObject({
  text: v.optional(v.pipe(v.string("text must be a string"), v.minLength(1, "text is empty"))),
  title: v.optional(v.string("title must be a string")),
  kind: v.optional(v.picklist(KINDS, `kind must be one of: ${KINDS.join(", ")}`)),
  tags: v.optional(v.array(v.string(), "tags must be a list of strings")),
  keywords: v.optional(v.array(v.string("keywords must be a list of strings"), "keywords must be a list of strings")),
  applies_to: v.optional(v.array(v.string(), "applies_to must be a list of strings")),
  cwd: v.optional(v.string()),
});

route("PATCH", "/api/v1/entries/{id}", async (req, _url, params, ctx) => {
  const body = parse(patchBody, await readJsonBody(req), "body");
  const { cwd, ...patch } = body;
  if (!Object.keys(patch).length)
    throw badRequest("nothing to change: give at least one of text, title, kind, tags, keywords, applies_to");
  return withStore(requestDir(ctx, cwd), "shallow", (store) => {
    // Only the caller's scopes (its project + global), as for GET and DELETE.
    const hit = /^[0-9A-HJKMNP-TV-Z]{1,64}$/i.test(params.id!)
      ? findEntry(store, params.id!, { scopes: activeScopes(store) })
      : undefined;
    if (!hit) throw notFound(`no entry with id "${params.id}" in this project or global`);
    const e = hit.entry;
    // Fields not in the patch keep their current value (a rewrite would re-derive the title).
    const res = remember(store, {
      id: e.id,
      text: patch.text ?? e.body,
      title: patch.title ?? e.title,
      kind: patch.kind ?? e.kind,
      tags: patch.tags ?? e.tags,
      keywords: patch.keywords, // absent: the entry keeps its own
      applies_to: patch.applies_to ?? e.applies_to,
      origin_session: e.origin_session,
      actor: "user",
      source: "http",
    });
    return json(entryView(res.entry, hit.scopeName));
  });
});

route("DELETE", "/api/v1/entries/{id}", async (_req, url, params, ctx) => {
  const dir = requestDir(ctx, url.searchParams.get("cwd"));
  const scope = url.searchParams.get("scope") ?? undefined;
  return json(await runTool("forget", { id: params.id, cwd: dir, ...(scope ? { scope } : {}) }, toolCtx(ctx)));
});

route("POST", "/api/v1/recall", async (req, _url, _params, ctx) => {
  return json(await runTool("recall", await readJsonBody(req), toolCtx(ctx)));
});

// ---------------------------------------------------------------------------------------------
// Rules

route("GET", "/api/v1/rules", (_req, url, _params, ctx) => {
  const q = parse(v.object({ scope: v.optional(scopeQuery), cwd: v.optional(v.string()) }), query(url), "query");
  return withStore(requestDir(ctx, q.cwd), "none", (store) => {
    const one = scopeKey(store, q.scope, "both");
    const scopes = one ? [one] : ruleScopes(store);
    return json({ rules: scopes.map((s) => ({ scope: scopeName(store, s), text: shownRules(s) })) });
  });
});

const rulesBody = v.strictObject({
  scope: scopeQuery,
  text: v.string("text must be a string (the whole rules.md; empty clears it)"),
  cwd: v.optional(v.string()),
});

route("PUT", "/api/v1/rules", async (req, _url, _params, ctx) => {
  const body = parse(rulesBody, await readJsonBody(req), "body");
  return withStore(requestDir(ctx, body.cwd), "none", (store) => {
    const key = scopeKey(store, body.scope)!;
    const res = writeRules(store, key, body.text, "user");
    return json({
      scope: body.scope,
      changed: res.changed,
      ...(res.scrubbed ? { scrubbed: res.scrubbed } : {}),
      text: shownRules(key),
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Inbox

route("GET", "/api/v1/inbox", async () => {
  const { listInbox } = await import("./sessions");
  return json<InboxList>({ items: await listInbox() });
});

for (const action of ["approve", "reject"] as const) {
  route("POST", `/api/v1/inbox/{id}/${action}`, async (_req, _url, params) => {
    const id = params.id!;
    if (!SAFE_ID.test(id)) throw badRequest("inbox id may only contain letters, digits, '_', '.', '-'");
    const api = await import("./sessions");
    const res = action === "approve" ? await api.approveInbox(id) : await api.rejectInbox(id);
    if (res.status === "not_found") throw notFound(`no inbox item "${id}"`, { hint: "GET /api/v1/inbox lists them" });
    return json(res);
  });
}
