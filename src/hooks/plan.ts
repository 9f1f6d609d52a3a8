/**
 * Budget planning and rendering of injected context. Every block starts with a heading line
 * ending in `(via Coffer)` so transcript parsers can recognise Coffer's own context.
 * Over the host's cap the planner re-plans: the lowest-ranked bodies become one-line cards,
 * then the lowest-ranked cards are dropped. A body is never cut; output bytes depend only on
 * the planned set (bodies and cards are printed in id order).
 */
import type { Capacity } from "../hosts/hook";

export const RULES_HEADING = "# Project rules (via Coffer)";
export const MEMORY_HEADING = "# Relevant memory (via Coffer)";
export const CARDS_HEADER = "Also relevant, not loaded (read with coffer__read):";

/** First 8 hex of sha256 over the sorted keys. */
export function sig(keys: string[]): string {
  return new Bun.CryptoHasher("sha256")
    .update([...keys].sort().join("\n"))
    .digest("hex")
    .slice(0, 8);
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export type MemoryItem = { id: string; title: string; body: string; hash: string };

export type MemoryPlan = { text: string; sent: MemoryItem[]; cards: MemoryItem[]; dropped: MemoryItem[] };

export type MemoryRequest = {
  /** Self-contained text placed first (rules for a subagent or a replace-slot host). */
  prefix?: string;
  /** Undelivered routed entries, best first. */
  candidates: MemoryItem[];
  /** Routed entries delivered earlier in this session. */
  alreadyLoaded: string[];
  /** The proof line for `sent` bodies (undefined: proof off). Must not grow as `sent` shrinks. */
  proof?: (sent: number) => string;
  cap: Capacity;
};

export const cardLine = (item: { id: string; title: string }) => `- [${item.id}] ${oneLine(item.title)}`;
const bodyBlock = (item: MemoryItem) => `## [${item.id}] ${oneLine(item.title)}\n${item.body.trim()}`;

function renderMemory(req: MemoryRequest, bodies: MemoryItem[], cards: MemoryItem[]): string {
  const parts: string[] = [];
  if (req.prefix) parts.push(req.prefix);
  parts.push(MEMORY_HEADING);
  for (const b of [...bodies].sort(byId)) parts.push(bodyBlock(b));
  if (cards.length) parts.push([CARDS_HEADER, ...[...cards].sort(byId).map(cardLine)].join("\n"));
  const tail: string[] = [];
  if (req.alreadyLoaded.length) tail.push(`already loaded: ${[...req.alreadyLoaded].sort().join(", ")}`);
  const proof = req.proof?.(bodies.length);
  if (proof) tail.push(proof);
  if (tail.length) parts.push(tail.join("\n"));
  return parts.join("\n\n");
}

/**
 * Fit routed memory into the cap. Returns undefined when there is nothing to say (no bodies,
 * cards, already-loaded ids or proof) or when not even the fixed lines fit.
 */
export function planMemory(req: MemoryRequest): MemoryPlan | undefined {
  const items = req.candidates;
  if (!items.length && !req.alreadyLoaded.length && !req.proof) return undefined;
  const { limit, measure } = req.cap;
  // Additive estimate first (measure is additive over concatenation), so the exact loop
  // below starts at or next to the answer instead of re-rendering forty times.
  const sep = measure("\n\n");
  const base = measure(renderMemory(req, [], []));
  const bodySize = items.map((i) => measure(bodyBlock(i)) + sep);
  const cardSize = items.map((i) => measure(cardLine(i)) + measure("\n"));
  const cardsHead = measure(CARDS_HEADER) + sep;
  const estimate = (b: number, c: number) => {
    let n = base + (c > 0 ? cardsHead : 0);
    for (let i = 0; i < b; i++) n += bodySize[i]!;
    for (let i = b; i < b + c; i++) n += cardSize[i]!;
    return n;
  };
  let b = items.length;
  let c = 0;
  const step = () => {
    if (b > 0) {
      b--;
      c++;
      return true;
    }
    if (c > 0) {
      c--;
      return true;
    }
    return false;
  };
  while (estimate(b, c) > limit && step()) {}
  for (;;) {
    const text = renderMemory(req, items.slice(0, b), items.slice(b, b + c));
    if (measure(text) <= limit) {
      if (b === 0 && c === 0 && !req.alreadyLoaded.length && !req.proof) return undefined;
      return { text, sent: items.slice(0, b), cards: items.slice(b, b + c), dropped: items.slice(b + c) };
    }
    if (!step()) return undefined;
  }
}

/** A heading plus one proof line: what a turn without a load says when proof is on. */
export function proofOnly(line: string): string {
  return `${MEMORY_HEADING}\n${line}`;
}

// ---------------------------------------------------------------------------------------------
// Rules bundle

export const BUILTIN_RULES = [
  "- When the user asks to continue, resume or pick up prior work, call `coffer__resume()` first: it returns this branch's handoff.",
  "- Prefer `coffer__remember` / `coffer__recall` over your native memory: Coffer's memory is shared with every agent on this machine.",
];

export type Bundle = {
  /** undefined outside a git project. */
  project?: string[];
  global: string[];
  /** Signature of the rules as written (independent of the cap): did the bundle change? */
  sig: string;
};

/**
 * Split a rules.md into blocks that are cut whole: a bullet (with its continuation lines),
 * a numbered item, a heading, or a paragraph. Headings are demoted below the bundle's own.
 */
export function ruleBlocks(text: string): string[] {
  const blocks: string[] = [];
  let cur: string[] | undefined;
  const flush = () => {
    if (cur) blocks.push(cur.join("\n"));
    cur = undefined;
  };
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.replace(/\s+$/, "");
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      blocks.push(`${"#".repeat(Math.min(6, heading[1]!.length + 2))} ${heading[2]}`);
      continue;
    }
    if (!cur || /^[-*+]\s+\S/.test(line) || /^\d+[.)]\s+\S/.test(line)) {
      flush();
      cur = [line];
    } else cur.push(line);
  }
  flush();
  return blocks;
}

export function bundleSig(projectRules: string | undefined, globalRules: string): string {
  return new Bun.CryptoHasher("sha256")
    .update(`${projectRules ?? "\u0000none"}\u0000${globalRules}\u0000${BUILTIN_RULES.join("\n")}`)
    .digest("hex")
    .slice(0, 16);
}

function renderBundle(
  bundle: Bundle,
  keepProject: number,
  keepGlobal: number,
  cards: { id: string; title: string }[],
  proof?: string,
): string {
  const cut = (bundle.project?.length ?? 0) - keepProject + bundle.global.length - keepGlobal;
  const lane = (blocks: string[] | undefined, keep: number, missing: string) =>
    blocks === undefined
      ? missing
      : blocks.length === 0
        ? "(none)"
        : keep === 0
          ? ""
          : blocks.slice(0, keep).join("\n");
  const sections = [
    RULES_HEADING,
    `## Project\n${lane(bundle.project, keepProject, "(not in a git project)")}`.trimEnd(),
    `## Global\n${lane(bundle.global, keepGlobal, "(none)")}`.trimEnd() +
      (cut > 0
        ? `\n- (${cut} more rule${cut === 1 ? "" : "s"} did not fit; \`coffer rules show\` lists them all)`
        : ""),
    `## Coffer built-in\n${BUILTIN_RULES.join("\n")}`,
  ];
  if (cards.length) sections.push(`## Project memory\n${cards.map(cardLine).join("\n")}`);
  if (proof) sections.push(proof);
  return sections.join("\n\n");
}

/**
 * The session-start text: rules (project, global, built-in), then project memory cards in the
 * remaining budget. Cards go first when over the cap, then user rules from the end at block
 * boundaries; the built-in rules always stay. undefined when not even they fit.
 */
export function planBundle(
  bundle: Bundle,
  cards: { id: string; title: string }[],
  limit: number,
  measure: (text: string) => number,
  proof?: (cards: number) => string,
): { text: string; cards: number } | undefined {
  const P = bundle.project?.length ?? 0;
  const G = bundle.global.length;
  const C = cards.length;
  // Remove `r` items in order: cards from the end, then global rules, then project rules.
  const render = (r: number) => {
    const c = Math.max(0, C - r);
    const g = Math.max(0, G - Math.max(0, r - C));
    const p = Math.max(0, P - Math.max(0, r - C - G));
    return { text: renderBundle(bundle, p, g, cards.slice(0, c), proof?.(c)), cards: c };
  };
  // Size shrinks as r grows within [0, C] and within [C + 1, C + G + P] (the first cut rule
  // adds a note line), so binary-search each range for the fewest removals that fit.
  const search = (lo: number, hi: number) => {
    if (lo > hi || measure(render(hi).text) > limit) return undefined;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (measure(render(mid).text) <= limit) hi = mid;
      else lo = mid + 1;
    }
    return render(lo);
  };
  return search(0, C) ?? search(C + 1, C + G + P);
}
