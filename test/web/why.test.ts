/**
 * The web UI says what and why, on any screen (issue 37), in Chromium against the compiled
 * `coffer serve`: each delivery with the reason it was routed (stored with the record), a session
 * start's cards and rules, every page 390 px wide as stacked rows with dates on one line and the
 * navigation in view, the Rules page's whole bundle, Markdown in titles and bodies, the audit log
 * naming entries by title and handle, Stats tables side by side from one line, one title per entry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { claudePrompt, claudeStart, contextOf, hook, remember, sandbox } from "../kit";
import { type Browser, launch, type ServedUi, serveUi } from "./_browser";

const sb = sandbox("coffer-web-why-");
let repo = "";
let served: ServedUi;
let browser: Browser;
let page: Page;
const T = 90_000;
const S = "sess-why-1";
let stripe = "";
let seedId = "";

async function go(hash: string, ready: string): Promise<void> {
  await page.goto(`${served.url}/${hash}`);
  await page.waitForSelector(ready);
}

beforeAll(async () => {
  repo = sb.repo("shop", "https://github.com/acme/shop.git");
  stripe = remember(sb, repo, "Stripe webhooks must be verified with the raw request body", "--tags", "stripe");
  remember(sb, repo, "Orders live in Postgres 16", "--kind", "convention");
  seedId = remember(
    sb,
    repo,
    "After a migration, run `npm run db:seed` to load the demo catalogue.\n\n- first **migrate**\n- then seed\n\n```\nnpm run db:seed\n```",
    "--title",
    "Seed with `npm run db:seed`",
    "--kind",
    "fact",
  );
  remember(sb, repo, "Prices are integers in cents", "--kind", "decision");
  sb.run(["forget", remember(sb, repo, "A scratch note about the old cron job"), "--yes"], { cwd: repo });
  sb.run(["rules", "add", "Run bun test before every commit"], { cwd: repo });
  sb.run(["rules", "add", "Prefer small pull requests", "--scope", "global"], { cwd: repo });
  hook(sb, "claude", "session-start", claudeStart(S, repo));
  expect(contextOf(hook(sb, "claude", "prompt", claudePrompt(S, repo, "how do we verify stripe webhooks?")))).toContain(
    "raw request body",
  );
  served = await serveUi(sb, repo);
  browser = await launch();
  page = await browser.context.newPage();
  await page.goto(served.loginUrl);
  await page.waitForSelector("#result-status:not(:has-text('Searching'))");
}, T);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  sb.cleanup();
});

describe("why was this injected", () => {
  test(
    "a prompt's delivery says the terms it matched and where; the API keeps the reason, never the prompt",
    async () => {
      const res = await served.api("/api/v1/ui/sessions");
      const body = await res.text();
      expect(body).not.toContain("how do we verify");
      const session = (JSON.parse(body) as { sessions: { session: string; events: Record<string, unknown>[] }[] })
        .sessions[0]!;
      const prompt = session.events.find((e) => e.event === "prompt") as {
        delivered: { id: string; why?: { terms?: { term: string; field: string }[] } }[];
      };
      expect(prompt.delivered.map((d) => d.id)).toEqual([stripe]);
      const terms = prompt.delivered[0]!.why?.terms ?? [];
      expect(terms.find((t) => t.term === "stripe")?.field).toBe("title");
      expect(terms.find((t) => t.term === "webhooks")?.field).toBe("title");

      await go("#/sessions", "#sessions-table");
      const row = page.locator(`tr[data-session="${S}"]`);
      await row.locator("summary").click();
      const why = await row.locator("tr[data-event=prompt] .why").textContent();
      expect(why).toMatch(
        /^Why: matched (“\w+”, )*“stripe”, (“\w+”, )*“webhooks” in the title(; similarity 0\.\d\d)?$/,
      );
    },
    T,
  );

  test(
    "a file the agent touches: the delivery names the path that matched the entry's applies_to",
    async () => {
      const tax = remember(sb, repo, "Tax is rounded per line, never per invoice", "--applies-to", "src/billing/**");
      const T2 = "sess-why-tool";
      hook(sb, "claude", "session-start", claudeStart(T2, repo));
      const out = hook(sb, "claude", "tool", {
        session_id: T2,
        cwd: repo,
        hook_event_name: "PreToolUse",
        tool_name: "Read",
        tool_input: { file_path: join(repo, "src", "billing", "tax.ts") },
      });
      expect(contextOf(out)).toContain("rounded per line");
      const sessions = (await (await served.api("/api/v1/ui/sessions")).json()) as {
        sessions: {
          session: string;
          events: {
            event: string;
            delivered: { id: string; title?: string; scope?: string; why?: { path?: string } }[];
          }[];
        }[];
      };
      const tool = sessions.sessions.find((x) => x.session === T2)!.events.find((e) => e.event === "tool")!;
      expect(tool.delivered).toEqual([
        { id: tax, title: expect.any(String), scope: expect.any(String), why: { path: "src/billing/tax.ts" } },
      ]);
    },
    T,
  );

  test(
    "a session start lists the rules bundle and the memory cards it sent, not 'none'",
    async () => {
      const start = page.locator(`tr[data-session="${S}"] tr[data-event="session-start"]`);
      const text = (await start.textContent())!;
      expect(text).not.toContain("none");
      expect(text).toContain("Rules: 1 project rule, 1 global rule and Coffer's built-in rules");
      const cards = await start.locator("ul.cards-sent li").allTextContents();
      expect(cards.length).toBeGreaterThanOrEqual(3);
      expect(cards.join("\n")).toContain("Orders live in Postgres 16");
      // The cards are not counted as bodies delivered.
      expect(await page.locator(`tr[data-session="${S}"] ul.sent li`).count()).toBe(1);
    },
    T,
  );
});

describe("390 px wide", () => {
  const pages: [string, string][] = [
    ["#/entries", "#entries-table"],
    ["#/projects", "#projects-table"],
    ["#/sessions", "#sessions-table"],
    ["#/trash", "main h1"],
    ["#/stats", ".cards"],
    ["#/health", "#doctor-table"],
  ];

  test(
    "tables are stacked rows (nothing scrolls sideways inside them), dates on one line, Health's problems in view",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const [hash, ready] of pages) {
          await go(hash, ready);
          if (hash === "#/sessions") await page.click("#sessions-table summary");
          const wide = (await page.evaluate(`[...document.querySelectorAll("main table, main table td")]
            .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > innerWidth + 1)
            .map((e) => e.tagName + " " + (e.id || e.className) + " " + e.scrollWidth + ">" + e.clientWidth)`)) as string[];
          expect({ hash, wide }).toEqual({ hash, wide: [] });
          // A date is one line: every line box of its text starts at the same height.
          const tall = (await page.evaluate(`(() => {
            const out = [];
            const walk = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
            for (let n = walk.nextNode(); n; n = walk.nextNode()) {
              if (!/[A-Z][a-z]{2}\\s\\d{1,2},\\s\\d{4},\\s\\d{1,2}:\\d{2}/.test(n.textContent)) continue;
              const r = document.createRange();
              r.selectNodeContents(n);
              const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
              if (tops.size > 1) out.push(n.textContent);
            }
            return out;
          })()`)) as string[];
          expect({ hash, tall }).toEqual({ hash, tall: [] });
        }
        // Health: each agent's problems column is on screen, with its column name.
        await go("#/health", "#doctor-table");
        const cell = page.locator("#doctor-table tbody tr").first().locator("td").last();
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        expect(await cell.getAttribute("data-label")).toBeTruthy();
        expect(await cell.isVisible()).toBe(true);
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    },
    T,
  );

  test(
    "moving to another page keeps the navigation in view (no jump down to the page's heading)",
    async () => {
      await page.setViewportSize({ width: 390, height: 500 });
      try {
        await go("#/entries", "#entries-table");
        await page.click("nav a[data-nav=health]");
        await page.waitForSelector("#doctor-table");
        expect(await page.evaluate("window.scrollY")).toBe(0);
        const nav = (await page.locator("nav").boundingBox())!;
        expect(nav.y).toBeGreaterThanOrEqual(0);
        expect(await page.evaluate("document.activeElement.id")).toBe("main");
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    },
    T,
  );
});

describe("what each page shows", () => {
  test(
    "the Rules page shows each host's whole bundle, memory cards included, with no inner scroll",
    async () => {
      for (let i = 0; i < 12; i++)
        sb.run(["rules", "add", `Rule ${i}: keep this rule long enough to fill a line`], { cwd: repo });
      await go(`#/rules?cwd=${encodeURIComponent(repo)}`, "[data-host=claude] pre.bundle");
      const pre = page.locator("[data-host=claude] pre.bundle");
      const [sh, ch] = (await page.evaluate(
        `(() => { const e = document.querySelector("[data-host=claude] pre.bundle"); return [e.scrollHeight, e.clientHeight]; })()`,
      )) as number[];
      expect(sh!).toBeGreaterThan(420);
      expect(sh).toBe(ch!);
      expect(await pre.textContent()).toContain("Orders live in Postgres 16");
      // The session start sent the rules as they were: the Sessions page says they changed since.
      await go("#/sessions", "#sessions-table");
      const start = page.locator(`tr[data-session="${S}"] tr[data-event="session-start"] .start-sent`);
      expect(await start.textContent()).toContain("The rules bundle");
      expect(await start.textContent()).toContain("(changed since: see today's)");
    },
    T,
  );

  test(
    "Markdown is rendered: backticks as code in titles, lists and code blocks in a body",
    async () => {
      await go("#/entries", "#entries-table");
      const title = page.locator(`tr[data-row="${seedId}"] button.title`);
      expect(await title.locator("code").textContent()).toBe("npm run db:seed");
      expect(await title.textContent()).not.toContain("`");
      await title.click();
      await page.waitForSelector("#entry-body");
      expect(await page.locator("#dialog-title code").textContent()).toBe("npm run db:seed");
      expect(await page.locator("#entry-body li").allTextContents()).toEqual(["first migrate", "then seed"]);
      expect(await page.locator("#entry-body li strong").textContent()).toBe("migrate");
      expect(await page.locator("#entry-body pre code").textContent()).toBe("npm run db:seed");
      await page.keyboard.press("Escape");
      // Other pages too: the Trash.
      sb.run(["forget", remember(sb, repo, "Never run `rm -rf dist` by hand"), "--yes"], { cwd: repo });
      await go("#/trash", "#trash-table");
      expect(await page.locator("#trash-table td code").allTextContents()).toContain("rm -rf dist");
    },
    T,
  );

  test(
    "the Entries list shows a one-line entry's title once",
    async () => {
      await go("#/entries", "#entries-table");
      const text = (await page.locator(`tr[data-row="${stripe}"] td:nth-child(2)`).textContent())!;
      expect(text.split("Stripe webhooks must be verified").length - 1).toBe(1);
    },
    T,
  );

  test(
    "the audit log names entries by title and handle, never by raw id",
    async () => {
      // The newest events (the log shows 20 a page): one entry written, another written and forgotten.
      const named = remember(sb, repo, "Audit entries are named by `title`");
      sb.run(["forget", remember(sb, repo, "A scratch note about the old cron job, again"), "--yes"], { cwd: repo });
      await go("#/health", "#audit-table");
      const table = (await page.locator("#audit-table").textContent())!;
      expect(table).not.toContain(named);
      expect(table).not.toMatch(/\b[0-9A-Z]{26}\b/);
      const created = page.locator(`#audit-table [data-entry="${named}"]`).first();
      expect(await created.textContent()).toContain("Audit entries are named by title");
      expect(await created.locator("button code").textContent()).toBe("title"); // Markdown too
      expect(await created.locator("code.handle").textContent()).toMatch(/^[0-9A-Z]{8}$/);
      // A forgotten entry is named from the trash.
      expect(table).toContain("A scratch note about the old cron job, again (in the trash)");
    },
    T,
  );

  test(
    "Stats: the host and event tables side by side start on one line",
    async () => {
      await go("#/stats", "#stats-hosts");
      const a = (await page.locator("#stats-hosts").boundingBox())!;
      const b = (await page.locator("#stats-events").boundingBox())!;
      expect(Math.round(a.y)).toBe(Math.round(b.y));
      const ha = (await page.locator("#stats-hosts thead").boundingBox())!;
      const hb = (await page.locator("#stats-events thead").boundingBox())!;
      expect(Math.round(ha.height)).toBe(Math.round(hb.height));
    },
    T,
  );
});
