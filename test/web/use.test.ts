/**
 * The web UI says whether the agent used what it was given (issue 41): the entry view's "Used by
 * the agent", the Stats page's use per kind and per entry, the Sessions page's mark on each judged
 * delivery, the Inbox's offer of entries delivered often and never used. A session judged by the use pass (test/capture/_use.ts), then `coffer serve` in a browser.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { A, B, usedSession } from "../capture/_use";
import { type Sandbox, sandbox } from "../kit";
import { type Browser, launch, loggedInPage, newLoginUrl, type ServedUi, serveUi } from "./_browser";

let sb: Sandbox;
let served: ServedUi;
let browser: Browser;

beforeAll(async () => {
  sb = sandbox("coffer-web-use-");
  const { repo } = usedSession(sb);
  sb.run(["config", "set", "distill.settle_minutes", "0"]);
  sb.run(["config", "set", "inbox.unused_after", "1"]);
  expect(sb.run(["stats", "--json"], { cwd: repo }).json().use.judged).toBe(2); // the pass ran
  served = await serveUi(sb, repo);
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  sb.cleanup();
});

describe("web UI: use", () => {
  test("the Sessions page marks the used delivery and the unused one", async () => {
    const page = await loggedInPage(browser.context, served.loginUrl);
    await page.goto(`${served.url}/#/sessions`);
    await page.waitForSelector(`[data-entry="${A}"] [data-used]`, { state: "attached" });
    expect(await page.textContent(`[data-entry="${A}"] [data-used]`)).toBe("used");
    expect(await page.textContent(`[data-entry="${B}"] [data-used]`)).toBe("not used");
    await page.close();
  }, 30_000);

  test("the Stats page counts use per kind and per entry", async () => {
    const page = await loggedInPage(browser.context, await newLoginUrl(served));
    await page.goto(`${served.url}/#/stats`);
    await page.waitForSelector("#stats-use-kinds");
    const kinds = await page.textContent("#stats-use-kinds");
    expect(kinds).toContain("gotcha");
    expect(kinds).toContain("convention");
    expect(await page.textContent("h2:has-text('Used by the agent')")).toContain("1 of 2 judged deliveries (50%)");
    await page.close();
  }, 30_000);

  test("the entry view says how often it was delivered and used", async () => {
    const page = await loggedInPage(browser.context, await newLoginUrl(served));
    await page.goto(`${served.url}/#/stats`);
    await page.waitForSelector("#stats-use-entries");
    await page.click("#stats-use-entries button.link:has-text('Health check and redis')");
    await page.waitForSelector("#entry-use");
    expect(await page.textContent("#entry-use")).toBe("delivered once, used once");
    await page.close();
  }, 30_000);

  test("the Inbox offers the entry never used, not the used one; Keep puts it off", async () => {
    const page = await loggedInPage(browser.context, await newLoginUrl(served));
    await page.goto(`${served.url}/#/inbox`);
    await page.waitForSelector("#unused-heading");
    expect(await page.textContent("#unused-heading")).toBe("Delivered often, never used (1)");
    expect(await page.textContent(`[data-unused="${B}"]`)).toContain("delivered once, never used");
    expect(await page.$(`[data-unused="${A}"]`)).toBeNull();
    await page.click(`[data-unused="${B}"] button:has-text("Keep")`);
    await page.waitForSelector("#no-unused");
    await page.close();
  }, 30_000);
});
