/**
 * `scrubText`, the transcript-side name for the one scrubber (src/scrub): every text is scrubbed
 * before it is sent to a model or stored anywhere. (The conversations' size budgets are in
 * conversation.ts.)
 */
import { type Found, REDACTED, scrub, scrubTogether } from "../scrub/index";

export { REDACTED };

export type Scrubbed = { text: string; redactions: number; found: Found[] };

/** Replace every secret in `text` with [redacted] and drop `<private>` spans. */
export function scrubText(text: string): Scrubbed {
  const r = scrub(text);
  return { text: r.text, redactions: r.redactions, found: r.found };
}

/**
 * Scrub the turns of one conversation together: a secret found in one turn (the key the user
 * pasted) is redacted in every turn (the agent echoing it back, bare).
 */
export function scrubTexts(texts: readonly string[]): Scrubbed[] {
  return scrubTogether(texts).map((r) => ({ text: r.text, redactions: r.redactions, found: r.found }));
}
