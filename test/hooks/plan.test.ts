/** Session-start planning: `roomForCards` decides, before any card is read, that none could be shown. */
import { expect, test } from "bun:test";
import { type Bundle, planBundle, roomForCards } from "../../src/hooks/plan";
import { charCount, utf8Bytes } from "../../src/hosts/hook";
import type { Card } from "../../src/store";
import { rng } from "../kit";

const ULID = "01J0000000000000000000000";
const rule = (r: () => number, i: number) =>
  `- Rule ${i}: ${"keep the migration plan reviewed ".repeat(1 + Math.floor(r() * 6)).trim()}`;
const card = (r: () => number, i: number): Card => ({
  id: `${ULID}${String.fromCharCode(65 + (i % 20))}`,
  title: `Card ${i} — ${"naïve café déjà vu ".repeat(1 + Math.floor(r() * 4)).trim()}`,
});

test("no room for cards means planBundle shows none; room means the rules and built-ins fit", () => {
  const r = rng(7);
  let skipped = 0;
  let shown = 0;
  for (let n = 0; n < 400; n++) {
    const rules = (k: number) => Array.from({ length: k }, (_, i) => rule(r, i));
    const bundle: Bundle = {
      project: rules(Math.floor(r() * 40)),
      global: rules(Math.floor(r() * 30)),
      ...(r() < 0.3 ? { team: rules(Math.floor(r() * 10)), teamLabel: "acme" } : {}),
      sig: "0123456789abcdef",
    };
    const handoff = r() < 0.3 ? 'A handoff for branch `main` (2 h old) begins "ship it".' : undefined;
    const cards = (k: number) => Array.from({ length: k }, (_, i) => card(r, i));
    const extras = { handoff, global: cards(Math.floor(r() * 10)), project: cards(Math.floor(r() * 20)) };
    const total = extras.global.length + extras.project.length;
    const limit = 1000 + Math.floor(r() * 9000);
    const measure = r() < 0.5 ? charCount : utf8Bytes;
    const proof =
      r() < 0.5 ? undefined : (t: number) => (c: number) => `Coffer proof: loaded rules + ${c}/${t} memory cards.`;
    const room = roomForCards(bundle, handoff, limit, measure, proof?.(0));
    const plan = planBundle(bundle, extras, limit, measure, proof?.(total));
    if (!room) {
      skipped++;
      expect(plan?.cards ?? 0).toBe(0);
    } else if (plan && plan.cards > 0) shown++;
  }
  // Both sides of the decision were exercised.
  expect(skipped).toBeGreaterThan(20);
  expect(shown).toBeGreaterThan(20);
});
