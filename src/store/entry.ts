import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";
import type { ScopeKey, ScopeName } from "./scope";

export const KINDS = ["fact", "decision", "gotcha", "convention", "todo", "preference", "note"] as const;
export type Kind = (typeof KINDS)[number];
export const SOURCES = ["cli", "mcp", "distill", "http", "import"] as const;
export type Source = (typeof SOURCES)[number];

export const TITLE_MAX = 120;

/**
 * Keywords: the other words someone would use to ask for an entry (synonyms, the category of the
 * tools it names, the question it answers). Short phrases, at most KEYWORDS_MAX of them; every
 * write path refuses a list that breaks these rules (keywordsProblem), model output is trimmed to
 * them (cleanKeywords in distill/keywords.ts).
 */
export const KEYWORDS_MAX = 8;
export const KEYWORD_MAX_CHARS = 60;
export const KEYWORD_MAX_WORDS = 6;

/** One keyword as stored: whitespace collapsed and trimmed. */
export const normKeyword = (k: string): string => k.replace(/\s+/g, " ").trim();

/**
 * What is wrong with a keyword list, or undefined when it is fine: a list of at most KEYWORDS_MAX
 * strings, each 1..KEYWORD_MAX_CHARS characters and at most KEYWORD_MAX_WORDS words, with a letter
 * or digit, no comma or line break. Checked whole, before anything is written.
 */
export function keywordsProblem(list: unknown): string | undefined {
  const rule = `at most ${KEYWORDS_MAX} short phrases (each 1 to ${KEYWORD_MAX_CHARS} characters, at most ${KEYWORD_MAX_WORDS} words, no commas)`;
  if (!Array.isArray(list)) return `keywords must be a list of ${rule}`;
  if (list.length > KEYWORDS_MAX) return `keywords has ${list.length} items; give ${rule}`;
  for (const k of list) {
    if (typeof k !== "string") return `keywords must be a list of strings (got ${JSON.stringify(k) ?? typeof k})`;
    const w = normKeyword(k);
    if (
      !w ||
      w.length > KEYWORD_MAX_CHARS ||
      w.split(" ").length > KEYWORD_MAX_WORDS ||
      /[,\n\r]/.test(k) ||
      !/[\p{L}\p{N}]/u.test(w)
    )
      return `invalid keyword ${JSON.stringify(k.length > 60 ? `${k.slice(0, 60)}…` : k)}: keywords are ${rule}`;
  }
  return undefined;
}

/** A valid keyword list as stored: normalized, duplicates (any case) dropped. */
export function normKeywords(list: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of list) {
    const w = normKeyword(k);
    if (seen.has(w.toLowerCase())) continue;
    seen.add(w.toLowerCase());
    out.push(w);
  }
  return out;
}

/** One memory entry: frontmatter fields + Markdown body. */
export type Entry = {
  id: string;
  kind: Kind;
  title: string;
  tags: string[];
  /** Other words people use for this topic (synonyms, the question it answers): indexed like tags. */
  keywords?: string[];
  applies_to: string[];
  actor: string;
  source: Source;
  origin_session?: string;
  /** Where an imported entry came from, e.g. `claude-mem:<source id>:observation:42:<content hash>` (set by `coffer import`). */
  imported_from?: string;
  /**
   * `superseded`: a newer entry (`superseded_by`) replaced it. It stays on disk and in `list --all`,
   * but is never routed, injected or recalled. Absent: the entry is current.
   */
  status?: "superseded";
  superseded_by?: string;
  created: string;
  updated: string;
  body: string;
  /** Frontmatter fields this version does not know (`priority:`, `owner:`): kept on every rewrite. */
  extra?: Record<string, unknown>;
};

/** The frontmatter keys Coffer reads; any other key is the user's and goes into `extra`. */
const KNOWN_KEYS = new Set([
  "id",
  "kind",
  "title",
  "tags",
  "keywords",
  "applies_to",
  "actor",
  "source",
  "origin_session",
  "imported_from",
  "status",
  "superseded_by",
  "created",
  "updated",
]);

const FRONTMATTER_RE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parse an entry file. Throws a CofferError naming the problem when it is not an entry. */
export function parseEntry(text: string, fallbackId?: string): Entry {
  if (text.includes("\u0000")) throw new CofferError("not a text file (it holds NUL bytes)");
  const m = FRONTMATTER_RE.exec(text);
  let meta: Record<string, unknown> = {};
  let body = text;
  if (m) {
    try {
      const parsed = Bun.YAML.parse(m[1]!);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) meta = parsed as Record<string, unknown>;
      else throw new Error("frontmatter is not a mapping");
    } catch (err) {
      throw new CofferError(`invalid frontmatter: ${(err as Error).message.split("\n")[0]}`);
    }
    body = text.slice(m[0].length);
  }
  const str = (v: unknown): string | undefined =>
    v === null || v === undefined
      ? undefined
      : v instanceof Date
        ? v.toISOString().replace(/\.\d{3}Z$/, "Z")
        : String(v);
  const list = (v: unknown): string[] =>
    Array.isArray(v) ? v.map((x) => String(x)).filter(Boolean) : typeof v === "string" && v ? [v] : [];
  const id = str(meta.id) ?? fallbackId;
  if (!id) throw new CofferError("entry has no id");
  const kind = str(meta.kind) as Kind | undefined;
  const source = str(meta.source) as Source | undefined;
  const created = str(meta.created) ?? "";
  body = body.replace(/^\s*\n/, "").replace(/\s+$/, "");
  const extra = Object.fromEntries(Object.entries(meta).filter(([k]) => !KNOWN_KEYS.has(k)));
  return {
    id,
    kind: kind && (KINDS as readonly string[]).includes(kind) ? kind : "note",
    title: str(meta.title) ?? deriveTitle(body),
    tags: list(meta.tags),
    ...(list(meta.keywords).length ? { keywords: list(meta.keywords) } : {}),
    applies_to: list(meta.applies_to),
    actor: str(meta.actor) ?? "user",
    source: source && (SOURCES as readonly string[]).includes(source) ? source : "import",
    origin_session: str(meta.origin_session),
    imported_from: str(meta.imported_from),
    ...(str(meta.status) === "superseded"
      ? {
          status: "superseded" as const,
          ...(str(meta.superseded_by) ? { superseded_by: str(meta.superseded_by) } : {}),
        }
      : {}),
    created,
    updated: str(meta.updated) ?? created,
    body,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

const PLAIN_SAFE = /^[A-Za-z0-9_][A-Za-z0-9_ ./@+-]*$/;
const AMBIGUOUS =
  /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:e[-+]?\d+)?|0x[0-9a-f]+|0o[0-7]+|\.inf|\.nan)$/i;

/** Any YAML value (a user's own field) written so it reads back the same: strings by `scalar`, the rest as JSON. */
function yamlValue(v: unknown): string {
  if (typeof v === "string") return scalar(v);
  if (v instanceof Date) return scalar(v.toISOString().replace(/\.\d{3}Z$/, "Z"));
  if (v === undefined) return "null";
  return JSON.stringify(v, (_k, x) => (x instanceof Date ? x.toISOString() : x)) ?? "null";
}

/** A YAML scalar that reads back as the same string: plain when unambiguous, JSON-quoted otherwise. */
function scalar(v: string): string {
  if (PLAIN_SAFE.test(v) && !AMBIGUOUS.test(v) && !v.endsWith(" ") && !/:\s|\s#/.test(v)) return v;
  if (/^[a-z]+:[A-Za-z0-9_.-]+$/.test(v)) return v; // actor: agent:claude
  if (/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v)) return v; // timestamps stay strings in YAML 1.2
  if (v === "") return '""';
  return JSON.stringify(v);
}

/**
 * Serialize an entry in the canonical field order. Every value goes through `scalar` (or JSON for
 * globs): whatever a field holds, it reads back as the same string and cannot add a line.
 */
export function serializeEntry(e: Entry): string {
  const lines = [
    "---",
    `id: ${scalar(e.id)}`,
    `kind: ${scalar(e.kind)}`,
    `title: ${scalar(e.title)}`,
    `tags: [${e.tags.map(scalar).join(", ")}]`,
  ];
  if (e.keywords?.length) lines.push(`keywords: [${e.keywords.map(scalar).join(", ")}]`);
  if (e.applies_to.length) lines.push(`applies_to: [${e.applies_to.map((g) => JSON.stringify(g)).join(", ")}]`);
  lines.push(`actor: ${scalar(e.actor)}`, `source: ${scalar(e.source)}`);
  if (e.origin_session) lines.push(`origin_session: ${scalar(e.origin_session)}`);
  if (e.imported_from) lines.push(`imported_from: ${scalar(e.imported_from)}`);
  if (e.status) lines.push(`status: ${scalar(e.status)}`);
  if (e.status && e.superseded_by) lines.push(`superseded_by: ${scalar(e.superseded_by)}`);
  for (const [k, v] of Object.entries(e.extra ?? {}))
    if (!KNOWN_KEYS.has(k))
      lines.push(`${/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? k : JSON.stringify(k)}: ${yamlValue(v)}`);
  lines.push(`created: ${scalar(e.created)}`, `updated: ${scalar(e.updated)}`, "---", e.body.replace(/\s+$/, ""), "");
  return lines.join("\n");
}

/** Case, whitespace and punctuation folded, for near-duplicate detection. */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s]+/gu, " ")
    .trim();
}

export function normHash(text: string): string {
  return sha256(normalizeText(text)).slice(0, 32);
}

/** A title from the first line of the body, cut at a word boundary. */
export function deriveTitle(body: string): string {
  const first =
    body
      .split("\n")
      .map((l) => l.replace(/^[#>*\-\s]+/, "").trim())
      .find(Boolean) ?? "";
  if (first.length <= 80) return first;
  const cut = first.slice(0, 80);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export type Located = {
  entry: Entry;
  scope: ScopeKey;
  /** "other-project" / "other-team": a scope of another repository, or another worktree's team lane. */
  scopeName: ScopeName | "other-project" | "other-team";
  file: string;
  /** Set (with what is wrong) when the file is not a valid entry and the caller asked for such files. */
  broken?: string;
};
