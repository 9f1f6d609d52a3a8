/**
 * Stale entries in the web UI (issue 30): the API routes (list with reasons, check now, keep) and
 * the Stale page in Chromium (Check now, Keep, Edit, Forget with Undo), against the compiled
 * `coffer serve`, with `coffer stale` and the files under memory/ as the judges.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Page } from "playwright-core";
import { remember, sandbox } from "../kit";
import { axe, type Browser, launch, loggedInPage, newLoginUrl, type ServedUi, serveUi } from "./_browser";

const sb = sandbox("coffer-webstale-");
const T = 60_000;
let repo = "";
let projectId = "";
let served: ServedUi;
let cookie = "";
let key = "";
let browser: Browser | undefined;
let page: Page;
const pageProblems: string[] = [];

type Reason = { anchor: string; why: string; moved?: string; text: string };
type Listed = { id: string; scope: string; scope_label: string; title: string; reasons: Reason[] };

function write(rel: string, text = "export {};\n"): void {
  mkdirSync(dirname(join(repo, rel)), { recursive: true });
  writeFileSync(join(repo, rel), text);
}

/** What `coffer stale --json` says in the repository (it runs the check itself). */
function cliStale(): { kept: number; stale: { id: string; title: string }[] } {
  const r = sb.run(["stale", "--json"], { cwd: repo });
  expect(r.code).toBe(0);
  return r.json();
}

/** A call as the page makes it: cookie, the page's key, own Origin on writes. */
async function ui(path: string, init: { method?: string; body?: unknown; auth?: boolean } = {}) {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = init.auth === false ? {} : { cookie, "x-coffer-key": key };
  if (method !== "GET") headers.origin = served.url;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(served.url + path, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const listed = async (query = ""): Promise<Listed[]> => {
  const r = await ui(`/api/v1/ui/stale${query}`);
  expect(r.status).toBe(200);
  return r.body.entries;
};

let tax = "";
let readme = "";
let cart = "";
let legacy = "";

beforeAll(async () => {
  repo = sb.repo("shop", "https://github.com/acme/shop.git");
  for (const f of ["src/billing/tax.ts", "src/cart.ts", "src/legacy/shim.ts", "src/util.ts"]) write(f);
  tax = remember(
    sb,
    repo,
    "--title",
    "Tax rounding",
    "Tax is rounded per line in src/billing/tax.ts, never per invoice.",
  );
  readme = remember(sb, repo, "--title", "Helpers", "Small helpers live in src/util.ts.");
  cart = remember(sb, repo, "--title", "Cart totals", "Cart totals are computed in src/cart.ts from integer cents.");
  legacy = remember(sb, repo, "--title", "Legacy shim", "The old checkout is wrapped by src/legacy/shim.ts until v3.");
  remember(
    sb,
    repo,
    "--title",
    "Global note",
    "Answer tersely; see src/billing/tax.ts in any repo.",
    "--scope",
    "global",
  );
  projectId = readdirSync(join(sb.cofferHome, "memory", "projects"))[0]!;
  served = await serveUi(sb, repo);
  const res = await fetch(served.loginUrl, { method: "POST", headers: { origin: served.url } });
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  key = ((await res.json()) as { key: string }).key;
}, T);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  sb.cleanup();
});

describe("the stale routes", () => {
  test("nothing is stale while every file is there; the routes need the session", async () => {
    expect(await listed()).toEqual([]);
    const check = await ui("/api/v1/ui/stale/check", { method: "POST", body: {} });
    expect(check.status).toBe(200);
    expect(check.body.projects).toEqual([
      { scope: projectId, scope_label: "shop", root: repo, checked: 4, stale: 0, kept: 0, unchecked: 0 },
    ]);
    expect(await listed()).toEqual([]);
    expect((await ui("/api/v1/ui/stale", { auth: false })).status).toBe(401);
    expect((await ui("/api/v1/ui/stale/check", { method: "POST", body: {}, auth: false })).status).toBe(401);
  });

  test("a removed file: Check now lists its entry with the reason, every scope or this project's", async () => {
    unlinkSync(join(repo, "src/billing/tax.ts"));
    const check = await ui("/api/v1/ui/stale/check", { method: "POST", body: { scope: projectId } });
    expect(check.status).toBe(200);
    expect(check.body.projects.map((p: { stale: number }) => p.stale)).toEqual([1]);
    const all = await listed();
    expect(all).toEqual([
      {
        id: tax,
        scope: projectId,
        scope_label: "shop",
        kind: "note",
        title: "Tax rounding",
        updated: expect.any(String),
        reasons: [
          { anchor: "path:src/billing/tax.ts", why: "src/billing/tax.ts is gone", text: "src/billing/tax.ts is gone" },
        ],
      } as unknown as Listed,
    ]);
    expect((await listed(`?scope=${projectId}`)).map((e) => e.id)).toEqual([tax]);
    expect(await listed("?scope=global")).toEqual([]);
    // the checkout the check ran against is named
    expect((await ui("/api/v1/ui/stale")).body.checkouts).toEqual([
      { scope: projectId, scope_label: "shop", root: repo },
    ]);
    // the CLI agrees
    expect(cliStale().stale.map((s) => s.id)).toEqual([tax]);
  });

  test("bad requests say what is wrong", async () => {
    expect((await ui("/api/v1/ui/stale?scope=nope")).status).toBe(400);
    expect((await ui(`/api/v1/ui/stale?scope=${"0".repeat(26)}`)).status).toBe(404);
    const global = await ui("/api/v1/ui/stale/check", { method: "POST", body: { scope: "global" } });
    expect(global.status).toBe(400);
    expect(global.body.error.message).toContain("global entries are never checked");
    const extra = await ui("/api/v1/ui/stale/check", { method: "POST", body: { scope: projectId, all: true } });
    expect(extra.status).toBe(400);
    expect((await ui("/api/v1/ui/stale/x!/keep", { method: "POST", body: {} })).status).toBeGreaterThanOrEqual(400);
    expect((await ui(`/api/v1/ui/stale/${"0".repeat(26)}/keep`, { method: "POST", body: {} })).status).toBe(404);
    const fresh = await ui(`/api/v1/ui/stale/${readme}/keep`, { method: "POST", body: {} });
    expect(fresh.status).toBe(409);
    expect(fresh.body.error).toMatchObject({ code: "not_stale" });
  });

  test("keep silences the entry's reasons: gone from the list and from coffer stale, until the file changes", async () => {
    const kept = await ui(`/api/v1/ui/stale/${tax}/keep`, { method: "POST", body: {} });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ status: "kept", id: tax, scope: projectId });
    expect(kept.body.kept.map((r: Reason) => r.text)).toEqual(["src/billing/tax.ts is gone"]);
    expect(await listed()).toEqual([]);
    const cli = cliStale();
    expect(cli.stale).toEqual([]);
    expect(cli.kept).toBe(1);
    // a second keep has nothing to keep
    expect((await ui(`/api/v1/ui/stale/${tax}/keep`, { method: "POST", body: {} })).status).toBe(409);
    // and a check from the page keeps it silenced
    await ui("/api/v1/ui/stale/check", { method: "POST", body: {} });
    expect(await listed()).toEqual([]);
  });
});

describe("the Stale page", () => {
  beforeAll(async () => {
    browser = await launch();
    page = await loggedInPage(browser.context, await newLoginUrl(served));
    page.on("pageerror", (e) => pageProblems.push(`page error: ${e.message}`));
  }, T);

  test(
    "Check now lists the entries whose files are gone, with their reasons; Keep takes one off the list",
    async () => {
      unlinkSync(join(repo, "src/cart.ts"));
      unlinkSync(join(repo, "src/legacy/shim.ts"));
      write("src/checkout/cart.ts");
      await page.click("nav >> text=Stale");
      await page.waitForSelector("#stale-status");
      expect(await page.textContent("h1")).toBe("Stale entries");
      expect(await page.locator("#stale-list > li").count()).toBe(0);

      await page.click("#stale-check");
      await page.waitForSelector("#toast:has-text('Checked')");
      await page.waitForSelector(`[data-stale="${cart}"]`);
      const cartItem = page.locator(`[data-stale="${cart}"]`);
      expect(await cartItem.locator("h3").textContent()).toContain("Cart totals");
      expect(await cartItem.textContent()).toContain("shop");
      expect(await cartItem.locator(".reasons li").textContent()).toBe(
        "src/cart.ts is gone (maybe moved to src/checkout/cart.ts)",
      );
      expect(await page.locator(`[data-stale="${legacy}"] .reasons li`).textContent()).toBe(
        "src/legacy/shim.ts is gone",
      );
      expect(await page.locator("#stale-list > li").count()).toBe(2);
      expect(await axe(page)).toEqual([]);

      // the title opens the entry
      await cartItem.locator("h3 button").click();
      await page.waitForSelector("#entry-dialog #entry-body");
      expect(await page.textContent("#entry-body")).toContain("src/cart.ts");
      await page.click("#entry-dialog >> text=Close");

      await cartItem.locator("button:has-text('Keep')").click();
      await page.waitForSelector("#toast:has-text('Kept')");
      await page.waitForSelector(`[data-stale="${cart}"]`, { state: "detached" });
      expect(await page.locator("#stale-list > li").count()).toBe(1);
      const cli = cliStale();
      expect(cli.stale.map((s) => s.id)).toEqual([legacy]);
      expect(cli.kept).toBe(2);
    },
    T,
  );

  test(
    "Edit opens the editor; fixing the path takes the entry off the list after the next check",
    async () => {
      write("src/legacy/shim.ts");
      unlinkSync(join(repo, "src/util.ts"));
      await page.click("#stale-check");
      await page.waitForSelector(`[data-stale="${readme}"]`);
      await page.locator(`[data-stale="${readme}"] button:has-text('Edit')`).click();
      await page.waitForSelector("#entry-form");
      expect(await page.inputValue("#ed-text")).toContain("src/util.ts");
      await page.fill("#ed-text", "Small helpers live in src/checkout/cart.ts now.");
      await page.click("#entry-form >> text=Save changes");
      await page.waitForSelector("#toast:has-text('Saved')");
      await page.click("#stale-check");
      await page.waitForSelector("#toast:has-text('Checked')");
      await page.waitForSelector(`[data-stale="${readme}"]`, { state: "detached" });
      expect(await page.locator("#stale-list > li").count()).toBe(0);
      expect(await page.isVisible("#stale-empty")).toBe(true);
    },
    T,
  );

  test(
    "Forget moves the entry to the trash, with Undo",
    async () => {
      unlinkSync(join(repo, "src/legacy/shim.ts"));
      await page.click("#stale-check");
      await page.waitForSelector(`[data-stale="${legacy}"]`);
      const file = join(sb.cofferHome, "memory", "projects", projectId, "entries", `${legacy}.md`);
      expect(existsSync(file)).toBe(true);
      await page.locator(`[data-stale="${legacy}"] button:has-text('Forget')`).click();
      await page.waitForSelector("#toast:has-text('Deleted')");
      await page.waitForSelector(`[data-stale="${legacy}"]`, { state: "detached" });
      expect(existsSync(file)).toBe(false);
      expect(cliStale().stale).toEqual([]);
      await page.click("#toast >> text=Undo");
      await page.waitForSelector("#toast:has-text('Restored')");
      expect(existsSync(file)).toBe(true);
      expect(cliStale().stale.map((s) => s.id)).toEqual([legacy]);
    },
    T,
  );

  test(
    "at 390 px, light and dark, the page never scrolls sideways",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        for (const scheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.goto(`${served.url}/#/stale`);
          await page.reload(); // the same address: no hashchange, so load it afresh
          await page.waitForSelector(`[data-stale="${legacy}"]`);
          const [sw, cw] = (await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
          )) as number[];
          expect({ scheme, sw }).toEqual({ scheme, sw: cw! });
          expect(await axe(page)).toEqual([]);
        }
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
        await page.setViewportSize({ width: 1280, height: 860 });
      }
      expect(pageProblems).toEqual([]);
    },
    T,
  );
});
