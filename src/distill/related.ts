/**
 * Existing entries a session's insights may replace or contradict. Still one model call per
 * session: before the call, the project's entries that the conversation's topics route to (BM25
 * recall over what the user said, the same search `coffer recall` runs) are listed after the
 * transcript, so the model can answer that an insight supersedes one of them, or flag one it
 * contradicts without the transcript settling which is right.
 */
import { recall } from "../retrieval/search";
import { closeStore, openProjectStore, type ProjectRef } from "../store";
import { scrubText } from "../transcripts/scrub";
import type { Turn } from "../transcripts/types";

export type RelatedEntry = { id: string; kind: string; title: string; body: string };

/** At most this many entries are shown, each body cut to BODY_MAX characters. */
export const RELATED_MAX = 10;
const BODY_MAX = 400;
const QUERY_MAX = 600;
const QUERIES_MAX = 8;

/** The queries: the session's title and the user's turns (most recent first), each cut short. */
function queries(title: string, turns: Turn[]): string[] {
  const users = turns.filter((t) => t.role === "user").map((t) => t.text);
  const out = [title, ...users.reverse()].map((q) => q.replace(/\s+/g, " ").trim().slice(0, QUERY_MAX));
  return [...new Set(out.filter((q) => q.length >= 3))].slice(0, QUERIES_MAX);
}

/**
 * Project entries related to the conversation, best first (round robin over the queries' ranked
 * hits, so each topic gets its best match in before any gets a second).
 */
export function relatedEntries(project: ProjectRef, title: string, turns: Turn[], max = RELATED_MAX): RelatedEntry[] {
  const qs = queries(title, turns);
  if (!qs.length) return [];
  let store: ReturnType<typeof openProjectStore> | undefined;
  try {
    store = openProjectStore(project);
    const lists = qs.map((q) => {
      try {
        return recall(store!, q, { scope: "project", limit: 3 });
      } catch {
        return []; // a query of stop words only, or no project scope yet
      }
    });
    const seen = new Set<string>();
    const out: RelatedEntry[] = [];
    for (let rank = 0; rank < 3 && out.length < max; rank++) {
      for (const list of lists) {
        const hit = list[rank];
        if (!hit || seen.has(hit.id) || out.length >= max) continue;
        seen.add(hit.id);
        // Entries are scrubbed when written; a hand-edited file may not be: scrub again before sending.
        const text = scrubText(hit.text).text;
        const body = text.length > BODY_MAX ? `${text.slice(0, BODY_MAX)}…` : text;
        out.push({ id: hit.id, kind: hit.kind, title: scrubText(hit.title).text, body });
      }
    }
    return out;
  } catch {
    return []; // no index yet: nothing to compare with
  } finally {
    if (store) closeStore(store);
  }
}

/** The section appended to the conversation (empty when there is nothing related). */
export function renderRelated(related: RelatedEntry[]): string {
  if (!related.length) return "";
  const items = related.map((e) => `[${e.id}] (${e.kind}) ${e.title}\n${e.body}`);
  return `\nExisting entries of this project that may be related (an insight may supersede or contradict one; refer to it by its id):\n\n${items.join("\n\n")}\n`;
}
