/**
 * The web UI for a person (issue 29), in Chromium against the compiled `coffer serve`: the
 * first-run hint, Sessions answering "what did my agent get?" across a compact and a resume,
 * the Rules page keeping itself when a directory is wrong, a styled page for a used login link
 * (and `coffer serve --login`), no favicon 404, no 401 while logged out, phone and laptop widths,
 * a paged audit log, one Stats default, toasts that stay on their page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { claudePrompt, claudeStart, contextOf, hook, remember, sandbox } from "../kit";
import {
  type Browser,
  CHROMIUM,
  CHROMIUM_ARGS,
  launch,
  loggedInPage,
  newLoginUrl,
  type ServedUi,
  serveUi,
} from "./_browser";

const sb = sandbox("coffer-web-polish-");
let repo = "";
let served: ServedUi;
let browser: Browser;
let page: Page;
const failed: string[] = [];
const T = 90_000;

async function go(hash: string, ready: string): Promise<void> {
  await page.goto(`${served.url}/${hash}`);
  await page.waitForSelector(ready);
}

beforeAll(async () => {
  repo = sb.repo("shop", "https://github.com/acme/shop.git");
  served = await serveUi(sb, repo);
  browser = await launch();
  // Entries' own page wait needs a result status; an empty store shows the first-run hint instead.
  page = await browser.context.newPage();
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(served.loginUrl);
  await page.waitForSelector("#result-status:not(:has-text('Searching'))");
}, T);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  sb.cleanup();
});

describe("an empty store", () => {
  test(
    "says how to start instead of 'No entries match.'",
    async () => {
      const hint = await page.waitForSelector("#first-run");
      const text = (await hint.textContent())!;
      expect(text).toContain("Nothing remembered yet");
      expect(text).toContain("coffer remember");
      expect(text).toContain("coffer link claude");
      expect(text).toContain("coffer import");
      expect(await page.locator("text=No entries match.").count()).toBe(0);
      // Its "add an entry" opens the editor.
      await page.click("#first-run button");
      await page.waitForSelector("#entry-form");
      await page.keyboard.press("Escape");
    },
    T,
  );
});

describe("sessions", () => {
  test(
    "each hook event lists the entries it delivered; summary and events agree, across a compact and a resume",
    async () => {
      remember(sb, repo, "Stripe webhooks must be verified with the raw request body", "--tags", "stripe");
      remember(sb, repo, "Orders live in Postgres 16", "--scope", "global", "--kind", "fact");
      const S = "sess-polish-1";
      hook(sb, "claude", "session-start", claudeStart(S, repo));
      expect(
        contextOf(hook(sb, "claude", "prompt", claudePrompt(S, repo, "how do we verify stripe webhooks?"))),
      ).toContain("raw request body");
      hook(sb, "claude", "compact", { session_id: S, cwd: repo, hook_event_name: "PreCompact", trigger: "auto" });
      hook(sb, "claude", "session-start", claudeStart(S, repo, "resume"));
      expect(
        contextOf(hook(sb, "claude", "prompt", claudePrompt(S, repo, "where do orders live? postgres?"))),
      ).toContain("Postgres 16");

      await go("#/sessions", "#sessions-table");
      const row = page.locator(`tr[data-session="${S}"]`);
      await row.locator("summary").click();
      const events = row.locator("table.events tbody tr");
      const kinds = await events.locator("td:nth-child(2)").allTextContents();
      expect(kinds).toEqual(["prompt", "session-start", "compact", "prompt", "session-start"]);
      // Each prompt names what it delivered: title (a button that opens it), handle, scope.
      const last = events.nth(0).locator("li");
      expect(await last.count()).toBe(1);
      expect(await last.textContent()).toContain("Orders live in Postgres 16");
      expect(await last.textContent()).toContain("Global");
      const first = events.nth(3).locator("li");
      expect(await first.textContent()).toContain("Stripe webhooks must be verified");
      expect(await first.textContent()).toContain("shop");
      // The summary counts what the events delivered: 2, not the 1 left after the compact.
      const cells = await row.locator(":scope > td").allTextContents();
      expect(cells.at(-2)).toBe("2");
      expect(await row.locator("ul.sent li").count()).toBe(2);
      await first.locator("button").click();
      await page.waitForSelector("#entry-body >> text=raw request body");
      await page.keyboard.press("Escape");
    },
    T,
  );
});

describe("rules", () => {
  test(
    "a directory that does not exist is an error beside the field; the page stays, also on reload",
    async () => {
      await go("#/rules", "#bundle-cwd");
      await page.fill("#bundle-cwd", "/no/such/dir/anywhere");
      await page.click("form[aria-label='Render the session-start bundle'] button");
      await page.waitForSelector("#bundle-cwd-error");
      expect(await page.textContent("#bundle-cwd-error")).toContain("cwd must be an absolute path");
      expect(await page.getAttribute("#bundle-cwd", "aria-invalid")).toBe("true");
      expect(await page.inputValue("#bundle-cwd")).toBe("/no/such/dir/anywhere");
      expect(await page.locator("#rules-form").count()).toBe(1);
      await page.reload();
      await page.waitForSelector("#bundle-cwd-error");
      expect(await page.locator("#rules-form").count()).toBe(1);
      // A good directory renders the bundles again.
      await page.fill("#bundle-cwd", repo);
      await page.click("form[aria-label='Render the session-start bundle'] button");
      await page.waitForSelector("[data-host=claude] pre.bundle");
      expect(await page.locator("#bundle-cwd-error").count()).toBe(0);
    },
    T,
  );
});

describe("logging in and out", () => {
  test(
    "a used login link gets a styled page that says what to do; `coffer serve --login` prints a new one",
    async () => {
      const res = await fetch(served.loginUrl);
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toContain("text/html");
      const p = await browser.context.newPage();
      await p.goto(served.loginUrl);
      expect(await p.textContent("h1")).toBe("This login link was already used or has expired");
      expect(await p.textContent("main")).toContain(`coffer serve --login --port ${served.port}`);
      // The app's own stylesheet: the header has its panel background, not the browser default.
      expect(await p.evaluate("getComputedStyle(document.querySelector('.top')).borderBottomStyle")).toBe("solid");
      await p.close();

      const cli = sb.run(["serve", "--login", "--port", String(served.port)]);
      expect(cli.code).toBe(0);
      const link = /^Web UI: (http:\/\/\S+\/login\?code=\S+) \(one-time login link\)$/m.exec(cli.stdout)?.[1];
      expect(link).toBeDefined();
      const other = await launch();
      try {
        const q = await loggedInPage(other.context, link!);
        expect(await q.textContent("h1")).toBe("Entries");
      } finally {
        await other.close();
      }
      // Nothing listening there: a clear error.
      const none = sb.run(["serve", "--login", "--port", "1"]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("coffer serve: no coffer serve answers on http://127.0.0.1:1");
    },
    T,
  );

  test(
    "the logged-out page makes no 401 request, with no key or a stale one; no request fails at all",
    async () => {
      const profile = mkdtempSync(join(tmpdir(), "coffer-chromium-"));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      try {
        const statuses: string[] = [];
        const p = await context.newPage();
        p.on("response", (r) => statuses.push(`${r.status()} ${new URL(r.url()).pathname}`));
        await p.goto(`${served.url}/`);
        await p.waitForSelector("text=Log in to Coffer");
        await p.evaluate(`localStorage.setItem("coffer-session-key", "stale-key-from-last-week")`);
        await p.reload();
        await p.waitForSelector("text=Log in to Coffer");
        await p.waitForLoadState("networkidle");
        expect(statuses.filter((s) => /^4|^5/.test(s))).toEqual([]);
        expect(statuses.some((s) => s.includes("/api/"))).toBe(false);
        expect(await p.evaluate(`localStorage.getItem("coffer-session-key")`)).toBeNull();
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    },
    T,
  );

  test("/favicon.ico is an icon, and the page links one", async () => {
    const res = await fetch(`${served.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("image/svg+xml");
    expect(await page.locator("link[rel=icon]").count()).toBe(1);
  });
});

describe("widths", () => {
  const pages: [string, string][] = [
    ["#/entries", "#entries-table"],
    ["#/projects", "#projects-table"],
    ["#/rules", "#rules-form"],
    ["#/sessions", "#sessions-table"],
    ["#/inbox", "#model-state"],
    ["#/stale", "#stale-status"],
    ["#/trash", "main h1"],
    ["#/stats", ".cards"],
    ["#/health", "#doctor-table"],
  ];

  test(
    "at 390 px no page scrolls sideways",
    async () => {
      // A handoff's file path is one long word: it must break, not widen the page.
      expect(sb.run(["handoff", "set", "Half-way through the refund flow"], { cwd: repo }).code).toBe(0);
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const [hash, ready] of pages) {
          await go(hash, ready);
          const [sw, cw] = (await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
          )) as number[];
          expect({ hash, sw }).toEqual({ hash, sw: cw! });
        }
      } finally {
        await page.setViewportSize({ width: 1280, height: 860 });
      }
    },
    T,
  );

  test(
    "at 1400 px the date range wraps as one piece, never one date alone on a line",
    async () => {
      for (const width of [1400, 1280, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        await go("#/entries", "#entries-table");
        const tops = (await page.evaluate(`(() => {
          const items = [...document.querySelectorAll(".filters > *")].filter((e) => e.offsetHeight > 0 && e.tagName !== "DATALIST");
          return items.map((e) => ({ range: e.classList.contains("range"), top: Math.round(e.getBoundingClientRect().bottom) }));
        })()`)) as { range: boolean; top: number }[];
        const since = await page.locator("#f-since").boundingBox();
        const until = await page.locator("#f-until").boundingBox();
        expect(Math.round(since!.y)).toBe(Math.round(until!.y));
        const rangeTop = tops.find((t) => t.range)!.top;
        expect({ width, others: tops.filter((t) => !t.range && t.top === rangeTop).length > 0 }).toEqual({
          width,
          others: true,
        });
      }
      await page.setViewportSize({ width: 1280, height: 860 });
    },
    T,
  );
});

describe("health, stats, toasts", () => {
  test(
    "the audit log shows 20 events a page, with Newer and Older",
    async () => {
      for (let i = 0; i < 25; i++) sb.run(["rules", "add", `Rule number ${i} for the audit log`], { cwd: repo });
      await go("#/health", "#audit-table");
      expect(await page.locator("#audit-table tbody tr").count()).toBe(20);
      const status = () => page.textContent("#audit-pager [role=status]");
      expect(await status()).toMatch(/^1–20 of \d+$/);
      const total = Number(/of (\d+)$/.exec((await status())!)![1]);
      expect(total).toBeGreaterThanOrEqual(25);
      await page.click("#audit-pager button:has-text('Older')");
      expect(await status()).toBe(`21–${Math.min(40, total)} of ${total}`);
      expect(await page.locator("#audit-table tbody tr").count()).toBe(Math.min(20, total - 20));
      await page.click("#audit-pager button:has-text('Newer')");
      expect(await status()).toMatch(/^1–20 of /);
      expect(await page.locator("#audit-pager button:has-text('Newer')").isDisabled()).toBe(true);
    },
    T,
  );

  test(
    "Stats shows the same window as `coffer stats` unless asked for another",
    async () => {
      const cli = sb.run(["stats", "--json"], { cwd: repo }).json();
      await go("#/stats", ".cards");
      expect(await page.locator("#stats-days option:checked").textContent()).toBe("last 7 days");
      expect(await page.textContent("main")).toContain(`${cli.since} to ${cli.until}`);
      await go("#/stats?days=30", ".cards");
      // Only the hash changed: the 7-day page's cards are still there until the new page renders.
      await page
        .waitForFunction(`document.querySelector("#stats-days option:checked")?.textContent === "last 30 days"`, null, {
          timeout: 10_000,
        })
        .catch(() => {});
      expect(await page.locator("#stats-days option:checked").textContent()).toBe("last 30 days");
    },
    T,
  );

  test(
    "a toast stays on the page it was raised on: gone after moving to another page",
    async () => {
      await go("#/rules", "#rules-form");
      await page.fill("#rules-text", "- Keep pull requests small");
      await page.click("#rules-form button[type=submit]");
      await page.waitForSelector("#toast:has-text('Rules saved')");
      await page.click("nav a[data-nav=projects]");
      await page.waitForSelector("#projects-table");
      expect(await page.textContent("#toast")).toBe("");
    },
    T,
  );
});

test("no request failed in the logged-in page while the tests ran (no favicon 404, no 401)", () => {
  // The reused login link and the bad directory are asked for on purpose: those answers are expected.
  expect(failed.filter((f) => !/\/login\?code=|\/api\/v1\/ui\/rules\?.*cwd=/.test(f))).toEqual([]);
});

test("a new login link from the running server still works through the API too", async () => {
  expect(await newLoginUrl(served)).toMatch(/\/login\?code=/);
});
