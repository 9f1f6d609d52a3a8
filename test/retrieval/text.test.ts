/**
 * What the agent reads (issue 29): a body whose title was made from its first words is printed
 * once, and a card carries up to about 140 characters cut at a word (the entry's own title when
 * that is short), so the clause that matters is not cut off at 80.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { claudePrompt, claudeStart, contextOf, hook, sandbox } from "../kit";

const sb = sandbox("coffer-hook-text-");
let repo = "";
let n = 0;

const STRIPE =
  "Stripe webhooks must be verified with the raw request body; express.json() before the webhook route breaks signature checks, so mount express.raw on /webhooks first.";
const STRIPE_MORE = "See src/server.ts for the order of the middlewares.";

function remember(args: string[]): string {
  const r = sb.run(["remember", ...args], { cwd: repo });
  expect(r.code).toBe(0);
  return /Remembered (\S+)/.exec(r.stdout)![1]!;
}

const count = (text: string, part: string) => text.split(part).length - 1;

beforeAll(() => {
  repo = sb.repo("shop", "https://github.com/acme/shop.git");
  remember([`${STRIPE}\n\n${STRIPE_MORE}`, "--kind", "gotcha", "--tags", "stripe,webhooks"]);
  remember(["Deploys need the VPN up, or make release hangs at the upload step", "--title", "Deploy needs VPN"]);
});
afterAll(() => sb.cleanup());

test("a body whose title is its opening is printed once, the whole first line as the heading", () => {
  const ctx = contextOf(
    hook(sb, "claude", "prompt", claudePrompt(`t-${++n}`, repo, "how do we verify stripe webhooks?")),
  );
  expect(ctx).toContain(`] ${STRIPE}\n${STRIPE_MORE}`);
  expect(count(ctx, "Stripe webhooks must be verified")).toBe(1);
  expect(ctx).not.toContain("express.json()…");
});

test("cards carry up to 140 characters cut at a word; a short own title stays the card", () => {
  const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart(`t-${++n}`, repo)));
  const lines = ctx.split("\n").filter((l) => l.startsWith("- ["));
  const stripe = lines.find((l) => l.includes("Stripe webhooks"))!;
  const card = stripe.replace(/^- \[\S+\] /, "");
  // The clause after the old 80-character cut is there now; the card ends at a word with an ellipsis.
  expect(card).toContain("before the webhook route breaks signature checks");
  expect(card.length).toBeLessThanOrEqual(140);
  expect(card.endsWith("…")).toBe(true);
  expect(STRIPE.startsWith(card.slice(0, -1))).toBe(true);
  expect(STRIPE[card.length - 1]).toBe(" ");
  expect(lines.some((l) => l.endsWith("] Deploy needs VPN"))).toBe(true);
});
