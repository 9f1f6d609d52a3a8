/**
 * The fake model server on loopback, for the agent end-to-end tests and for Coffer's own model
 * (distillation, enrichment). It speaks just enough of:
 *   - Anthropic Messages        POST /v1/messages (SSE when "stream": true, JSON otherwise),
 *                               POST /v1/messages/count_tokens
 *   - OpenAI Responses          POST /v1/responses (SSE when "stream": true)
 *   - OpenAI Chat Completions   POST /v1/chat/completions (for `coffer distill` as an OpenAI-compatible model)
 *   - Gemini                    POST /v1beta/models/<m>:generateContent | :streamGenerateContent | :countTokens
 * Every request is recorded (method, path, headers, parsed body and raw text). Replies are scripted
 * by `respond` (plain text by default, optionally a tool call, a token usage, an HTTP status or a raw
 * body), or listed in order with `modelServer(replies)`. Nothing here talks to the network.
 */

export type Api = "anthropic" | "responses" | "chat" | "gemini" | "other";

export type RecordedRequest = {
  seq: number;
  api: Api;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: any;
  raw: string;
};

export type ToolCall = { name: string; input: Record<string, unknown> | string };
/** Token usage a reply reports, in the API's own shape; `null` leaves it out (absent: an estimate). */
export type ReplyUsage = { input: number; output: number; cacheRead?: number; cacheWrite?: number } | null;
/**
 * What the model answers: text, and/or one tool call (then the turn ends with a tool stop reason),
 * with the token usage it reports; or `raw`, a body sent as it is. `status` and `headers` go on the
 * response, which leaves after `delayMs`.
 */
export type Reply = {
  text?: string;
  toolCall?: ToolCall;
  usage?: ReplyUsage;
  raw?: string;
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
};
export type Responder = (req: RecordedRequest) => Reply | undefined;

export type ModelServer = {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replace the responder (undefined -> the default "OK." text). */
  setResponder: (r: Responder | undefined) => void;
  /** Forget recorded requests (e.g. between turns). */
  clear: () => void;
  stop: () => void;
};

const DEFAULT_TEXT = "OK.";

/**
 * `headers: "kept"` records credential headers as sent (a test that checks the key went out);
 * by default they are recorded as "[set]".
 */
export function startModelServer(
  opts: { respond?: Responder; log?: boolean; headers?: "kept" | "masked" } = {},
): ModelServer {
  const requests: RecordedRequest[] = [];
  let respond: Responder | undefined = opts.respond;
  let seq = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(request) {
      const url = new URL(request.url);
      const raw = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      request.headers.forEach((v, k) => {
        headers[k] = opts.headers !== "kept" && /key|authorization|token/i.test(k) ? "[set]" : v;
      });
      const api = classify(request.method, url.pathname);
      const rec: RecordedRequest = {
        seq: ++seq,
        api,
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers,
        body,
        raw,
      };
      requests.push(rec);
      if (opts.log || process.env.MODEL_SERVER_LOG)
        console.error(`[model-server] ${request.method} ${url.pathname}${url.search} (${raw.length} bytes)`);
      // asked only for the model's own turns (not token counts or Gemini's JSON helpers)
      const reply = () => (api === "other" ? {} : (respond?.(rec) ?? { text: DEFAULT_TEXT }));
      return await route(api, url, body, raw, request.method, reply);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port!,
    requests,
    setResponder: (r) => {
      respond = r;
    },
    clear: () => {
      requests.length = 0;
    },
    stop: () => server.stop(true),
  };
}

/** The reply in the shape of the API the request came to. */
function route(
  api: Api,
  url: URL,
  body: any,
  raw: string,
  method: string,
  reply: () => Reply,
): Response | Promise<Response> {
  switch (api) {
    case "anthropic":
      if (url.pathname.endsWith("/count_tokens")) return Response.json({ input_tokens: estimateTokens(raw) });
      return shaped(reply(), (r) => anthropicReply(body, r, raw));
    case "responses":
      return shaped(reply(), (r) => responsesReply(body, r, raw));
    case "chat":
      return shaped(reply(), (r) => chatReply(body, r, raw));
    case "gemini":
      if (url.pathname.endsWith(":countTokens")) return Response.json({ totalTokens: estimateTokens(raw) });
      // Gemini CLI's helpers (model router, next-speaker check...) ask for JSON matching a schema:
      // answer those with a minimal valid object so they never retry or fall back.
      if (body?.generationConfig?.responseMimeType === "application/json") {
        const schema = body.generationConfig.responseJsonSchema ?? body.generationConfig.responseSchema;
        return geminiReply(url.pathname, { text: JSON.stringify(sampleFromSchema(schema)) }, raw);
      }
      return shaped(reply(), (r) => geminiReply(url.pathname, r, raw));
    default:
      if (url.pathname === "/v1/models" || url.pathname === "/models")
        return Response.json({ object: "list", data: [] });
      return Response.json(
        { error: { message: `fake model server: no route for ${method} ${url.pathname}` } },
        { status: 404 },
      );
  }
}

/** A reply in its API's shape, or its raw body; with its status and headers, after its delay. */
async function shaped(r: Reply, shape: (r: Reply) => Response): Promise<Response> {
  if (r.delayMs) await Bun.sleep(r.delayMs);
  if (r.raw !== undefined) return new Response(r.raw, { status: r.status, headers: r.headers });
  const res = shape(r);
  if (!r.status && !r.headers) return res;
  return new Response(res.body, {
    status: r.status ?? res.status,
    headers: { ...Object.fromEntries(res.headers), ...r.headers },
  });
}

/** A server whose replies are a list (`modelServer`). */
export type ScriptedModelServer = ModelServer & { replies: Reply[] };

/**
 * A server answering `replies` in order, the last one repeating (a test may change the list while
 * it runs); no usage unless a reply gives one, credential headers recorded as sent.
 */
export function modelServer(replies: Reply[]): ScriptedModelServer {
  let n = 0;
  const server = Object.assign(startModelServer({ headers: "kept" }), { replies });
  server.setResponder(() => ({ usage: null, ...server.replies[Math.min(n++, server.replies.length - 1)]! }));
  return server;
}

/** A reply's usage in Anthropic's shape; the estimate when it gives none. */
function anthropicUsage(u: ReplyUsage | undefined, estimate: Record<string, number>) {
  if (u === undefined) return { usage: estimate };
  if (u === null) return {};
  return {
    usage: {
      input_tokens: u.input,
      output_tokens: u.output,
      ...(u.cacheRead !== undefined ? { cache_read_input_tokens: u.cacheRead } : {}),
      ...(u.cacheWrite !== undefined ? { cache_creation_input_tokens: u.cacheWrite } : {}),
    },
  };
}

/** A reply's usage in OpenAI Chat Completions' shape; the estimate when it gives none. */
function chatUsage(u: ReplyUsage | undefined, estimate: Record<string, number>) {
  if (u === undefined) return { usage: estimate };
  if (u === null) return {};
  return { usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } };
}

function classify(method: string, path: string): Api {
  if (method !== "POST") return "other";
  if (/\/v1\/messages(\/count_tokens)?$/.test(path)) return "anthropic";
  if (/\/responses$/.test(path)) return "responses";
  if (/\/chat\/completions$/.test(path)) return "chat";
  if (/\/models\/[^/]+:(generateContent|streamGenerateContent|countTokens)$/.test(path)) return "gemini";
  return "other";
}

const estimateTokens = (raw: string) => Math.max(1, Math.ceil(raw.length / 4));

function sse(chunks: string[]): Response {
  return new Response(chunks.join(""), {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

const ev = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

let idCounter = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++idCounter).toString(36).padStart(4, "0")}`;

// ---------------------------------------------------------------- Anthropic Messages

function anthropicReply(body: any, reply: Reply, raw: string): Response {
  const model = body?.model ?? "claude-fake";
  const id = nextId("msg");
  const usageIn = {
    input_tokens: estimateTokens(raw),
    output_tokens: 1,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const content: any[] = [];
  if (reply.text !== undefined && reply.text !== "") content.push({ type: "text", text: reply.text });
  if (reply.toolCall)
    content.push({ type: "tool_use", id: nextId("toolu"), name: reply.toolCall.name, input: reply.toolCall.input });
  if (content.length === 0) content.push({ type: "text", text: DEFAULT_TEXT });
  const stopReason = reply.toolCall ? "tool_use" : "end_turn";
  if (!body?.stream) {
    return Response.json({
      id,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      ...anthropicUsage(reply.usage, { ...usageIn, output_tokens: 5 }),
    });
  }
  const out: string[] = [];
  out.push(
    ev("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageIn,
      },
    }),
  );
  content.forEach((block, index) => {
    if (block.type === "text") {
      out.push(
        ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }),
      );
      out.push(
        ev("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: block.text },
        }),
      );
    } else {
      out.push(
        ev("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      out.push(
        ev("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        }),
      );
    }
    out.push(ev("content_block_stop", { type: "content_block_stop", index }));
  });
  out.push(
    ev("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    }),
  );
  out.push(ev("message_stop", { type: "message_stop" }));
  return sse(out);
}

// ---------------------------------------------------------------- OpenAI Responses

function responsesReply(body: any, reply: Reply, raw: string): Response {
  const model = body?.model ?? "gpt-fake";
  const id = nextId("resp");
  const created_at = Math.floor(Date.now() / 1000);
  const items: any[] = [];
  if (reply.text !== undefined && reply.text !== "") {
    items.push({
      type: "message",
      id: nextId("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  if (reply.toolCall) {
    const call_id = nextId("call");
    if (reply.toolCall.name === "tool_search") {
      // Codex defers MCP tools behind its client-side tool_search tool.
      items.push({
        type: "tool_search_call",
        id: nextId("tsc"),
        status: "completed",
        call_id,
        execution: "client",
        arguments: reply.toolCall.input,
      });
    } else if (typeof reply.toolCall.input === "string") {
      // Freeform ("custom") tools such as Codex's apply_patch take raw text input.
      items.push({
        type: "custom_tool_call",
        id: nextId("ctc"),
        status: "completed",
        call_id,
        name: reply.toolCall.name,
        input: reply.toolCall.input,
      });
    } else {
      items.push({
        type: "function_call",
        id: nextId("fc"),
        status: "completed",
        call_id,
        name: reply.toolCall.name,
        arguments: JSON.stringify(reply.toolCall.input),
      });
    }
  }
  if (items.length === 0)
    items.push({
      type: "message",
      id: nextId("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: DEFAULT_TEXT, annotations: [] }],
    });
  const inTok = estimateTokens(raw);
  const usage = {
    input_tokens: inTok,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inTok + 5,
  };
  const base = { id, object: "response", created_at, model, status: "in_progress", output: [] as any[] };
  if (!body?.stream) return Response.json({ ...base, status: "completed", output: items, usage });
  const out: string[] = [];
  let n = 0;
  const push = (type: string, data: Record<string, unknown>) =>
    out.push(ev(type, { type, sequence_number: n++, ...data }));
  push("response.created", { response: base });
  push("response.in_progress", { response: base });
  items.forEach((item, output_index) => {
    if (item.type === "message") {
      const text = item.content[0].text;
      push("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      push("response.content_part.added", {
        item_id: item.id,
        output_index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      push("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: text });
      push("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text });
      push("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: item.content[0] });
    } else {
      push("response.output_item.added", { output_index, item });
    }
    push("response.output_item.done", { output_index, item });
  });
  push("response.completed", { response: { ...base, status: "completed", output: items, usage } });
  return sse(out);
}

// ---------------------------------------------------------------- OpenAI Chat Completions

function chatReply(body: any, reply: Reply, raw: string): Response {
  const model = body?.model ?? "gpt-fake";
  const text = reply.text ?? (reply.toolCall ? "" : DEFAULT_TEXT);
  const id = nextId("chatcmpl");
  const created = Math.floor(Date.now() / 1000);
  const inTok = estimateTokens(raw);
  const usage = { prompt_tokens: inTok, completion_tokens: 5, total_tokens: inTok + 5 };
  const call = reply.toolCall && {
    id: nextId("call"),
    type: "function",
    function: {
      name: reply.toolCall.name,
      arguments: typeof reply.toolCall.input === "string" ? reply.toolCall.input : JSON.stringify(reply.toolCall.input),
    },
  };
  const finish = call ? "tool_calls" : "stop";
  if (!body?.stream) {
    const message = { role: "assistant", content: text || null, ...(call ? { tool_calls: [call] } : {}) };
    return Response.json({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      ...chatUsage(reply.usage, usage),
    });
  }
  const chunk = (delta: unknown, finish_reason: string | null) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  const chunks = [chunk({ role: "assistant", content: text }, null)];
  if (call) chunks.push(chunk({ tool_calls: [{ index: 0, ...call }] }, null));
  chunks.push(chunk({}, finish));
  // `stream_options.include_usage`: a last chunk with no choices carries the usage.
  if (body.stream_options?.include_usage)
    chunks.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
    );
  chunks.push("data: [DONE]\n\n");
  return sse(chunks);
}

// ---------------------------------------------------------------- Gemini

function geminiReply(path: string, reply: Reply, raw: string): Response {
  const parts: any[] = [];
  if (reply.text !== undefined && reply.text !== "") parts.push({ text: reply.text });
  if (reply.toolCall) parts.push({ functionCall: { name: reply.toolCall.name, args: reply.toolCall.input } });
  if (parts.length === 0) parts.push({ text: DEFAULT_TEXT });
  const inTok = estimateTokens(raw);
  const payload = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: inTok, candidatesTokenCount: 5, totalTokenCount: inTok + 5 },
    modelVersion: path.match(/models\/([^/:]+):/)?.[1] ?? "gemini-fake",
    responseId: nextId("gresp"),
  };
  if (path.endsWith(":streamGenerateContent")) return sse([`data: ${JSON.stringify(payload)}\r\n\r\n`]);
  return Response.json(payload);
}

/** The smallest value a JSON schema (OpenAPI-style upper-case types too) accepts. */
export function sampleFromSchema(schema: any): unknown {
  if (!schema || typeof schema !== "object") return {};
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = String(schema.type ?? (schema.properties ? "object" : "string")).toLowerCase();
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = sampleFromSchema(v);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default:
      return "ok";
  }
}

// ---------------------------------------------------------------- reading recorded requests

/** Tests index into recorded requests; a missing one is a test failure that says so. */
function need(req: RecordedRequest | undefined): RecordedRequest {
  if (!req) throw new Error("expected a recorded model request that was not made");
  return req;
}

/** Whether the conversation in a request ends with a tool result (the model is being asked to continue after a tool). */
export function endsWithToolResult(req: RecordedRequest | undefined): boolean {
  req = need(req);
  const b = req.body;
  if (!b) return false;
  if (req.api === "anthropic") {
    const users = (b.messages ?? []).filter((m: any) => m.role === "user");
    const last = users[users.length - 1];
    return Array.isArray(last?.content) && last.content.some((c: any) => c.type === "tool_result");
  }
  if (req.api === "responses") {
    const items: any[] = Array.isArray(b.input) ? b.input : [];
    for (let i = items.length - 1; i >= 0; i--) {
      const t = items[i]?.type;
      if (t === "function_call_output" || t === "custom_tool_call_output" || t === "tool_search_output") return true;
      if (items[i]?.role === "user" && (t === "message" || t === undefined)) return false;
    }
    return false;
  }
  if (req.api === "gemini") {
    const users = (b.contents ?? []).filter((c: any) => c.role === "user");
    const last = users[users.length - 1];
    return (last?.parts ?? []).some((p: any) => p.functionResponse);
  }
  if (req.api === "chat") {
    const msgs: any[] = b.messages ?? [];
    for (let i = msgs.length - 1; i >= 0; i--) {
      if (msgs[i]?.role === "tool") return true;
      if (msgs[i]?.role === "user") return false;
    }
  }
  return false;
}

/** Names of the tools a request offers to the model (function declarations, tools, ...). */
export function offeredTools(req: RecordedRequest | undefined): string[] {
  req = need(req);
  const b = req.body;
  if (!b) return [];
  if (req.api === "gemini") {
    return (b.tools ?? []).flatMap((t: any) =>
      (t.functionDeclarations ?? t.function_declarations ?? []).map((f: any) => f.name),
    );
  }
  // Built-in tools without a name (Codex tool_search, web_search) are listed by their type.
  return (b.tools ?? []).map((t: any) => t.name ?? t.function?.name ?? t.type).filter(Boolean);
}

/**
 * Every piece of text the model sees in a request, in order, one string per message/part/tool
 * output (system prompt and tool schemas excluded). For asserting what reached the model.
 */
export function conversationTexts(req: RecordedRequest | undefined): { role: string; text: string }[] {
  req = need(req);
  const b = req.body;
  const out: { role: string; text: string }[] = [];
  if (!b) return out;
  const fromContent = (role: string, content: any) => {
    if (typeof content === "string") out.push({ role, text: content });
    else if (Array.isArray(content)) {
      for (const c of content) {
        if (typeof c?.text === "string") out.push({ role, text: c.text });
        else if (c?.type === "tool_result") fromContent("tool", c.content);
      }
    }
  };
  if (req.api === "anthropic") {
    for (const m of b.messages ?? []) fromContent(m.role, m.content);
  } else if (req.api === "responses") {
    for (const it of Array.isArray(b.input) ? b.input : [{ role: "user", content: b.input }]) {
      if (it.type === "message" || (it.role && it.content !== undefined)) fromContent(it.role, it.content);
      else if (typeof it.output === "string") out.push({ role: "tool", text: it.output });
      else if (it.type === "tool_search_output") out.push({ role: "tool", text: JSON.stringify(it.tools) });
    }
  } else if (req.api === "gemini") {
    for (const c of b.contents ?? []) {
      for (const p of c.parts ?? []) {
        if (typeof p.text === "string") out.push({ role: c.role, text: p.text });
        else if (p.functionResponse) out.push({ role: "tool", text: JSON.stringify(p.functionResponse.response) });
      }
    }
  } else if (req.api === "chat") {
    for (const m of b.messages ?? []) fromContent(m.role, m.content);
  }
  return out;
}

/** The whole conversation of a request as one string (for `includes` checks). */
export function conversationText(req: RecordedRequest | undefined): string {
  return conversationTexts(req)
    .map((t) => `[${t.role}] ${t.text}`)
    .join("\n");
}

/** Requests that carry the agent's conversation (not Gemini's JSON-mode router/helper calls or token counts). */
export function agentTurns(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => {
    if (r.api === "anthropic") return r.path.endsWith("/messages") && Array.isArray(r.body?.messages);
    if (r.api === "responses") return true;
    if (r.api === "gemini")
      return (
        r.path.endsWith(":streamGenerateContent") ||
        (r.path.endsWith(":generateContent") && r.body?.generationConfig?.responseMimeType !== "application/json")
      );
    if (r.api === "chat") return Array.isArray(r.body?.messages);
    return false;
  });
}
