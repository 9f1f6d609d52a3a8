/**
 * Budget planning and rendering of injected context. Every block starts with a heading line
 * ending in `(via Coffer)` so transcript parsers can recognise Coffer's own context.
 * A prompt first gets its own small budget (a few bodies, then a few one-line cards, then
 * nothing); over the host's cap the planner re-plans: the lowest-ranked bodies become one-line
 * cards, then the lowest-ranked cards are dropped. A body is never cut. Bodies and cards are
 * printed best-first, so output bytes depend only on the planned (ranked) set.
 */
import type { Capacity } from "../hosts/hook";
import { handle } from "../lib/handle";
import type { Card } from "../store";

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

export type MemoryItem = {
  id: string;
  title: string;
  body: string;
  hash: string;
  /** Relevant, but not enough to spend the prompt budget's body space on: a card at most. */
  cardOnly?: boolean;
  /** Where it came from when that is not the reader's own memory: "team" (the repository's .coffer/). */
  lane?: "team";
  /** Said after its card's text, e.g. an unresolved sync conflict (its body carries the whole note). */
  mark?: string;
};

export type MemoryPlan = { text: string; sent: MemoryItem[]; cards: MemoryItem[]; dropped: MemoryItem[] };

/** A per-prompt budget: at most `bodies` bodies in `chars` characters, then `cards` one-line cards. */
export type PromptBudget = { chars: number; bodies: number; cards: number };

/** Characters per body the prompt budget assumes: the default 1,500 allow three bodies, then three cards. */
export const CHARS_PER_BODY = 500;

export function promptBudget(chars: number): PromptBudget {
  const n = Math.max(1, Math.round(chars / CHARS_PER_BODY));
  return { chars, bodies: n, cards: n };
}

export type MemoryRequest = {
  /** Self-contained text placed first (rules for a subagent or a replace-slot host). */
  prefix?: string;
  /** Undelivered routed entries, best first. */
  candidates: MemoryItem[];
  /** Routed entries delivered earlier in this session. */
  alreadyLoaded: string[];
  /** The proof line for `sent` bodies (undefined: proof off). Must not grow as `sent` shrinks. */
  proof?: (sent: number) => string;
  /** The prompt's own budget inside the cap (undefined: only the cap). */
  budget?: PromptBudget;
  cap: Capacity;
};

/** The longest card text: room for the clause that matters, about two lines of a terminal. */
export const CARD_MAX = 140;

const fold = (text: string) =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s]+/gu, " ")
    .trim();

/** The first non-empty line without Markdown markers (as `deriveTitle` in store/entry.ts reads it), and what follows it. */
function firstLine(text: string): { line: string; rest: string } {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^[#>*\-\s]+/, "").trim();
    if (line)
      return {
        line,
        rest: lines
          .slice(i + 1)
          .join("\n")
          .trim(),
      };
  }
  return { line: "", rest: "" };
}

/** Whether `body` begins with `title`'s words (case, punctuation and a cut title's ellipsis aside). */
function opensWith(body: string, title: string): boolean {
  const t = fold(title);
  return t.length > 0 && fold(body).startsWith(t);
}

/** At most `max` characters, cut at a word (a long word or unspaced text is cut where it is) with an ellipsis. */
function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * A card's text: the entry's own title when it is short; when the title was cut from the body's
 * first line (it ends with "…" and the body begins with it), that line, up to CARD_MAX characters.
 */
function cardText(title: string, body?: string): string {
  const t = oneLine(title);
  if (body !== undefined && t.endsWith("…") && opensWith(body, t))
    return cutAtWord(oneLine(firstLine(body).line), CARD_MAX);
  return cutAtWord(t, CARD_MAX);
}

/** One card line; `body` (or its opening, `head`) lets a cut title show the whole clause. */
export const cardLine = (item: {
  id: string;
  title: string;
  body?: string;
  head?: string;
  lane?: "team";
  stale?: string;
  mark?: string;
}) =>
  `- [${handle(item.id)}] ${cardText(item.title, item.body ?? item.head)}${laneMark(item)}${item.stale ? ` ${item.stale}` : ""}${item.mark ? ` ${item.mark}` : ""}`;

/** " (team)" after an entry from the repository's team lane, so the agent knows where a fact came from. */
const laneMark = (item: { lane?: "team" }) => (item.lane ? ` (${item.lane})` : "");

/**
 * A body under its heading, the text printed once: when the title is the body's opening (made
 * from its first words, or the same line), the heading carries that whole first line and the
 * rest follows; otherwise the title, then the body.
 */
function bodyBlock(item: { id: string; title: string; body: string; lane?: "team" }): string {
  const text = item.body.trim();
  if (opensWith(text, item.title)) {
    const { line, rest } = firstLine(text);
    return `## [${handle(item.id)}] ${oneLine(line)}${laneMark(item)}${rest ? `\n${rest}` : ""}`;
  }
  return `## [${handle(item.id)}] ${oneLine(item.title)}${laneMark(item)}${text ? `\n${text}` : ""}`;
}

function renderMemory(req: MemoryRequest, bodies: MemoryItem[], cards: MemoryItem[]): string {
  const parts: string[] = [];
  if (req.prefix) parts.push(req.prefix);
  parts.push(MEMORY_HEADING);
  for (const b of bodies) parts.push(bodyBlock(b));
  if (cards.length) parts.push([CARDS_HEADER, ...cards.map(cardLine)].join("\n"));
  const tail: string[] = [];
  // "already loaded" only matters next to something new; alone it is noise.
  if (req.alreadyLoaded.length && (bodies.length || cards.length))
    tail.push(`already loaded: ${[...req.alreadyLoaded].sort().map(handle).join(", ")}`);
  const proof = req.proof?.(bodies.length);
  if (proof) tail.push(proof);
  if (tail.length) parts.push(tail.join("\n"));
  return parts.join("\n\n");
}

/** Split best-first candidates by the prompt budget: bodies while they fit, then cards, then nothing. */
function byBudget(items: MemoryItem[], budget: PromptBudget | undefined): MemoryItem[][] {
  if (!budget) return [items, []];
  const bodies: MemoryItem[] = [];
  const cards: MemoryItem[] = [];
  let used = 0;
  for (const item of items) {
    const size = bodyBlock(item).length + 2;
    // The best match may take up to twice the budget (a body is never cut); the rest must fit it.
    const room = bodies.length === 0 ? 2 * budget.chars : budget.chars - used;
    if (!cards.length && !item.cardOnly && bodies.length < budget.bodies && size <= room) {
      bodies.push(item);
      used += size;
    } else if (cards.length < budget.cards) cards.push(item);
    else break;
  }
  return [bodies, cards];
}

/**
 * Fit routed memory into the prompt budget and the cap. Returns undefined when there is nothing
 * to say (no body or card, and no proof) or when not even the fixed lines fit.
 */
export function planMemory(req: MemoryRequest): MemoryPlan | undefined {
  if (!req.candidates.length && !req.proof) return undefined;
  const [chosen, carded] = byBudget(req.candidates, req.budget);
  const items = [...chosen!, ...carded!];
  const overBudget = req.candidates.slice(items.length);
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
  let b = chosen!.length;
  let c = carded!.length;
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
      if (b === 0 && c === 0 && !req.proof) return undefined;
      return {
        text,
        sent: items.slice(0, b),
        cards: items.slice(b, b + c),
        dropped: [...items.slice(b + c), ...overBudget],
      };
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
  /** The repository's team rules (`.coffer/rules.md`); undefined when it has none or the lane is off. */
  team?: string[];
  /** The repository's name, for the team heading. */
  teamLabel?: string;
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

export function bundleSig(projectRules: string | undefined, globalRules: string, teamRules?: string): string {
  // (the team text joins the signature only when there is one: a store without a team lane keeps its signatures)
  const team = teamRules ? `\u0000team\u0000${teamRules}` : "";
  return new Bun.CryptoHasher("sha256")
    .update(`${projectRules ?? "\u0000none"}\u0000${globalRules}\u0000${BUILTIN_RULES.join("\n")}${team}`)
    .digest("hex")
    .slice(0, 16);
}

/** The heading of the team rules: whose they are and where they live, so the agent reads them as the repository's. */
export function teamHeading(label: string | undefined): string {
  return `## Team (${label ? `${label}: ` : ""}the repository's .coffer/rules.md)`;
}

/** What session start carries besides the rules: a handoff note, global cards, project cards. */
export type StartExtras = {
  /** One line announcing this branch's handoff (undefined: none). */
  handoff?: string;
  /** Global entries that apply everywhere (conventions, preferences), best first. */
  global: Card[];
  /** This project's most useful entries, best first. */
  project: Card[];
  /** The repository's team lane's most useful entries, best first (absent: none). */
  team?: Card[];
};

/** StartExtras with each card already rendered as its line (planBundle renders many candidates). */
type RenderedExtras = { handoff?: string; global: string[]; project: string[]; team: string[] };

/** How many rules of each lane are kept. */
type Kept = { project: number; team: number; global: number };

function renderBundle(bundle: Bundle, keep: Kept, extras: RenderedExtras, keepCards: number, proof?: string): string {
  const cut =
    (bundle.project?.length ?? 0) -
    keep.project +
    (bundle.team?.length ?? 0) -
    keep.team +
    bundle.global.length -
    keep.global;
  const note =
    cut > 0 ? `- (${cut} more rule${cut === 1 ? "" : "s"} did not fit; \`coffer rules show\` lists them all)` : "";
  const lanes = [
    { heading: "## Project", rules: bundle.project?.slice(0, keep.project) ?? [] },
    { heading: teamHeading(bundle.teamLabel), rules: bundle.team?.slice(0, keep.team) ?? [] },
    { heading: "## Global", rules: bundle.global.slice(0, keep.global) },
  ].filter((l) => l.rules.length);
  const sections = [RULES_HEADING];
  // Empty lanes are left out; the note about cut rules follows the last lane printed.
  for (const [i, l] of lanes.entries())
    sections.push(`${l.heading}\n${l.rules.join("\n")}${note && i === lanes.length - 1 ? `\n${note}` : ""}`);
  sections.push(`## Coffer built-in\n${note && !lanes.length ? `${note}\n` : ""}${BUILTIN_RULES.join("\n")}`);
  if (extras.handoff) sections.push(`## Handoff\n${extras.handoff}`);
  const g = extras.global.slice(0, keepCards);
  const p = extras.project.slice(0, Math.max(0, keepCards - g.length));
  const t = extras.team.slice(0, Math.max(0, keepCards - g.length - p.length));
  if (g.length) sections.push(`## Everywhere (global conventions and preferences)\n${g.join("\n")}`);
  if (p.length) sections.push(`## Project memory\n${p.join("\n")}`);
  if (t.length) sections.push(`## Team memory (the repository's .coffer/)\n${t.join("\n")}`);
  if (proof) sections.push(proof);
  return sections.join("\n\n");
}

/**
 * The session-start text: rules (project, team, global, built-in), the handoff line, then global
 * convention/preference cards, project memory cards and team memory cards in the remaining
 * budget. Cards go first when over the cap (team, then project cards from the end, then global
 * ones), then user rules from the end at block boundaries (global, team, project); the built-in
 * rules always stay. undefined when there is nothing to
 * carry (no rules, handoff or cards: an empty store injects nothing) or when not even the
 * built-in rules fit.
 */
/**
 * Whether any card can be shown at all: the rules, built-ins and handoff with every card removed
 * already fill `limit` (planBundle then cuts rules and shows no card). Decided before the cards
 * are read, so a start whose rules fill the host's cap never queries or checks them.
 */
export function roomForCards(
  bundle: Bundle,
  handoff: string | undefined,
  limit: number,
  measure: (text: string) => number,
  proof?: (cards: number) => string,
): boolean {
  const none = { handoff, global: [], project: [], team: [] };
  const keep = { project: bundle.project?.length ?? 0, team: bundle.team?.length ?? 0, global: bundle.global.length };
  return measure(renderBundle(bundle, keep, none, 0, proof?.(0))) <= limit;
}

export function planBundle(
  bundle: Bundle,
  extras: StartExtras,
  limit: number,
  measure: (text: string) => number,
  proof?: (cards: number) => string,
): { text: string; cards: number } | undefined {
  const P = bundle.project?.length ?? 0;
  const T = bundle.team?.length ?? 0;
  const G = bundle.global.length;
  const team = extras.team ?? [];
  const C = extras.global.length + extras.project.length + team.length;
  if (!P && !T && !G && !C && !extras.handoff) return undefined;
  const lines = {
    handoff: extras.handoff,
    global: extras.global.map(cardLine),
    project: extras.project.map(cardLine),
    team: team.map(cardLine),
  };
  // Remove `r` items in order: cards from the end, then global rules, then team rules, then project rules.
  const render = (r: number) => {
    const c = Math.max(0, C - r);
    const g = Math.max(0, G - Math.max(0, r - C));
    const t = Math.max(0, T - Math.max(0, r - C - G));
    const p = Math.max(0, P - Math.max(0, r - C - G - T));
    return { text: renderBundle(bundle, { project: p, team: t, global: g }, lines, c, proof?.(c)), cards: c };
  };
  // Size shrinks as r grows within [0, C] and within [C + 1, C + G + P] (the first cut rule
  // adds a note line), so binary-search each range for the fewest removals that fit.
  const search = (lo: number, hi: number) => {
    if (lo > hi) return undefined;
    const all = render(lo); // the usual case: everything fits, one render
    if (measure(all.text) <= limit) return all;
    if (lo === hi || measure(render(hi).text) > limit) return undefined;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (measure(render(mid).text) <= limit) hi = mid;
      else lo = mid + 1;
    }
    return render(lo);
  };
  return search(0, C) ?? search(C + 1, C + G + T + P);
}
