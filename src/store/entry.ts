import { CofferError } from "../lib/errors";
import { sha256 } from "../lib/hash";

export const KINDS = ["fact", "decision", "gotcha", "convention", "todo", "preference", "note"] as const;
export type Kind = (typeof KINDS)[number];
export const SOURCES = ["cli", "mcp", "distill", "http", "import"] as const;
export type Source = (typeof SOURCES)[number];

export const TITLE_MAX = 120;

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
  /** Where an imported entry came from, e.g. `claude-mem:observation:42` (set by `coffer import`). */
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
};

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
  };
}

const PLAIN_SAFE = /^[A-Za-z0-9_][A-Za-z0-9_ ./@+-]*$/;
const AMBIGUOUS =
  /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:e[-+]?\d+)?|0x[0-9a-f]+|0o[0-7]+|\.inf|\.nan)$/i;

/** A YAML scalar that reads back as the same string: plain when unambiguous, JSON-quoted otherwise. */
function scalar(v: string): string {
  if (PLAIN_SAFE.test(v) && !AMBIGUOUS.test(v) && !v.endsWith(" ") && !/:\s|\s#/.test(v)) return v;
  if (/^[a-z]+:[A-Za-z0-9_.-]+$/.test(v)) return v; // actor: agent:claude
  if (/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(v)) return v; // timestamps stay strings in YAML 1.2
  return JSON.stringify(v);
}

/** Serialize an entry in the canonical field order. */
export function serializeEntry(e: Entry): string {
  const lines = [
    "---",
    `id: ${e.id}`,
    `kind: ${e.kind}`,
    `title: ${scalar(e.title)}`,
    `tags: [${e.tags.map(scalar).join(", ")}]`,
  ];
  if (e.keywords?.length) lines.push(`keywords: [${e.keywords.map(scalar).join(", ")}]`);
  if (e.applies_to.length) lines.push(`applies_to: [${e.applies_to.map((g) => JSON.stringify(g)).join(", ")}]`);
  lines.push(`actor: ${scalar(e.actor)}`, `source: ${e.source}`);
  if (e.origin_session) lines.push(`origin_session: ${scalar(e.origin_session)}`);
  if (e.imported_from) lines.push(`imported_from: ${scalar(e.imported_from)}`);
  if (e.status) lines.push(`status: ${e.status}`);
  if (e.status && e.superseded_by) lines.push(`superseded_by: ${scalar(e.superseded_by)}`);
  lines.push(`created: ${e.created}`, `updated: ${e.updated}`, "---", e.body.replace(/\s+$/, ""), "");
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
