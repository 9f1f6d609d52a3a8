/**
 * Memory that stays true, in the web UI: contradictions the model flagged wait in the inbox next
 * to the entry they contradict (approve supersedes the old entry in its file, reject drops the
 * insight), superseded entries are hidden unless asked for and then marked, and a sweep the daily
 * token budget paused says so on the Inbox, Stats and Health pages. Real distillation against a
 * loopback model server, the compiled `coffer serve`, Chromium through playwright-core.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";
import { axe, type Browser, launch, loggedInPage, type ServedUi, screenshot, serveUi } from "./_browser";

const T = 60_000;
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
const S1 = "eeeeeeee-0000-4000-8000-0000000000e1";
const S2 = "eeeeeeee-0000-4000-8000-0000000000e2";
const S3 = "eeeeeeee-0000-4000-8000-0000000000e3";
const OLD_DEPLOY = "Deploys go through make release; never push tags by hand.";
const OLD_TESTS = "Unit tests run with jest (npm test).";
const NEW_DEPLOY = {
  kind: "decision",
  title: "Releases run in the GitHub Actions workflow",
  body: "Deploys go through the release workflow in GitHub Actions; make release was removed.",
};
const NEW_TESTS = {
  kind: "convention",
  title: "Unit tests run with vitest",
  body: "The test runner is vitest now (npm test runs vitest run).",
};

const sb = sandbox("coffer-web-curation-");
let repo = "";
let projectId = "";
let deployId = "";
let testsId = "";
let model: ModelServer;
let served: ServedUi;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const entryFile = (id: string) => join(sb.cofferHome, "memory", "projects", projectId, "entries", `${id}.md`);
const conflictFiles = () =>
  existsSync(join(sb.cofferHome, "inbox"))
    ? [...new Bun.Glob("conflict-*.json").scanSync(join(sb.cofferHome, "inbox"))]
    : [];

async function go(hash: string, ready: string): Promise<void> {
  await page.goto(`${served.url}/${hash}`);
  await page.waitForSelector(ready);
}

beforeAll(async () => {
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  const remember = (text: string, kind: string) => {
    const r = sb.run(["remember", text, "--kind", kind, "--json"], { cwd: repo });
    if (r.code !== 0) throw new Error(r.stderr);
    return r.json().id as string;
  };
  deployId = remember(OLD_DEPLOY, "decision");
  testsId = remember(OLD_TESTS, "convention");
  projectId = sb.run(["status", "--json"], { cwd: repo }).json().project.id;

  // Two sessions whose insights contradict the two entries without settling it, then a third
  // the daily budget stops: 1,200 tokens a call, 2,500 a day.
  placeClaude(sb, simpleClaudeSession("How do we deploy now?", "We deploy with the GitHub Actions release workflow."), {
    id: S1,
    cwd: repo,
    ageMinutes: 90,
  });
  placeClaude(sb, simpleClaudeSession("Which test runner?", "We switched to vitest."), {
    id: S2,
    cwd: repo,
    ageMinutes: 80,
  });
  model = modelServer([
    { text: JSON.stringify([{ ...NEW_DEPLOY, contradicts: deployId }]), usage: { input: 1000, output: 200 } },
    { text: JSON.stringify([{ ...NEW_TESTS, contradicts: testsId }]), usage: { input: 1000, output: 200 } },
  ]);
  writeModelConfig(sb, "openai", model.url);
  for (const id of [S1, S2]) {
    const r = await runAsync(sb, ["distill", "run", id, "--json"], { env });
    if (r.code !== 0) throw new Error(`distill run ${id}: ${r.stdout}${r.stderr}`);
  }
  appendFileSync(join(sb.cofferHome, "config.toml"), "\n[distill]\ndaily_token_budget = 2500\n");
  placeClaude(sb, simpleClaudeSession("Where do logs go?", "Logs go to stdout as JSON lines."), {
    id: S3,
    cwd: repo,
    ageMinutes: 70,
  });
  const sweep = await runAsync(sb, ["distill", "sweep", "--json"], { env });
  if (!sweep.json().budget?.paused) throw new Error(`the sweep was not paused: ${sweep.stdout}${sweep.stderr}`);

  served = await serveUi(sb, repo);
  browser = await launch();
  page = await loggedInPage(browser.context, served.loginUrl);
  page.on("pageerror", (e) => pageErrors.push(e.message));
}, 2 * T);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  model?.stop();
  sb.cleanup();
});

describe("the daily token budget", () => {
  test(
    "a paused sweep is shown on the Inbox, Stats and Health pages with its figures",
    async () => {
      expect(model.requests.length).toBe(2); // the third session was never sent
      const b = (await (await served.api("/api/v1/ui/budget")).json()) as Record<string, unknown>;
      expect(b).toMatchObject({ budget: 2500, spent: 2400, remaining: 100, paused: true });

      await go("#/inbox", "#budget-state");
      const inbox = (await page.textContent("#budget-state"))!;
      expect(inbox).toContain("Distillation paused: daily token budget reached");
      expect(inbox).toContain("2,400 of 2,500 tokens");
      expect(inbox).toMatch(/about [\d,]+ tokens/);
      expect(inbox).toContain("--force");

      await go("#/stats", "#stats-models");
      expect(await page.textContent("#budget-state")).toContain("2,400 of 2,500 tokens");

      await go("#/health", "#health-budget");
      const health = (await page.textContent("#health-budget"))!;
      expect(health).toMatch(/^Paused: 2,400 of 2,500 tokens spent today/);
      expect(health).toContain("resumes tomorrow");
      await screenshot(page, "health-budget-paused-light");
    },
    T,
  );
});

describe("contradictions in the inbox", () => {
  test(
    "both sides are listed with Approve/Reject; no axe violations; screenshot",
    async () => {
      expect(conflictFiles().length).toBe(2);
      await go("#/inbox", "#conflict-list");
      const items = page.locator("#conflict-list > li");
      expect(await items.count()).toBe(2);
      const first = (await items.nth(0).textContent())!;
      expect(first).toContain(OLD_DEPLOY);
      expect(first).toContain(NEW_DEPLOY.body);
      expect(first).toContain(deployId.slice(-8)); // its handle
      expect(await page.textContent("#conflicts-heading")).toBe("Contradictions (2)");
      const found: string[] = [];
      for (const v of await axe(page)) found.push(`${v.id} (${v.impact}) ${v.help} at ${v.nodes.join(", ")}`);
      expect(found).toEqual([]);
      await screenshot(page, "inbox-conflict-light");
      await page.emulateMedia({ colorScheme: "dark" });
      for (const v of await axe(page)) found.push(`dark: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.join(", ")}`);
      expect(found).toEqual([]);
      await screenshot(page, "inbox-conflict-dark");
      await page.emulateMedia({ colorScheme: "light" });
    },
    T,
  );

  test(
    "settling needs the page's key like every other call",
    async () => {
      const id = (await page.getAttribute("#conflict-list > li >> nth=0", "data-conflict"))!;
      const status = await page.evaluate(
        `fetch("/api/v1/ui/conflicts/${id}/approve", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then(r => r.status)`,
      );
      expect(status).toBe(401);
      expect(conflictFiles().length).toBe(2);
      expect(readFileSync(entryFile(deployId), "utf8")).not.toContain("superseded");
    },
    T,
  );

  test(
    "reject removes the contradiction and keeps the existing entry as it was",
    async () => {
      const before = readFileSync(entryFile(testsId), "utf8");
      const li = page.locator(`#conflict-list > li:has-text("${NEW_TESTS.title}")`);
      const id = (await li.getAttribute("data-conflict"))!;
      await li.getByRole("button", { name: /^Reject/ }).click();
      await page.waitForSelector("#conflicts-heading:text-is('Contradictions (1)')");
      expect(existsSync(join(sb.cofferHome, "inbox", `conflict-${id}.json`))).toBe(false);
      expect(conflictFiles().length).toBe(1);
      expect(readFileSync(entryFile(testsId), "utf8")).toBe(before);
      const list = sb.run(["list", "--all", "--json"], { cwd: repo }).json();
      expect(JSON.stringify(list)).not.toContain(NEW_TESTS.title);
    },
    T,
  );

  test(
    "approve writes the insight and marks the old entry superseded in its file under memory/",
    async () => {
      const li = page.locator(`#conflict-list > li:has-text("${NEW_DEPLOY.title}")`);
      await li.getByRole("button", { name: /^Approve/ }).click();
      await page.waitForSelector("#no-conflicts");
      expect(conflictFiles().length).toBe(0);
      const old = readFileSync(entryFile(deployId), "utf8");
      expect(old).toMatch(/^status: superseded$/m);
      const by = /^superseded_by: (\S+)$/m.exec(old)?.[1];
      expect(by).toBeDefined();
      expect(old).toContain(OLD_DEPLOY); // kept on disk, body untouched
      const fresh = readFileSync(entryFile(by!), "utf8");
      expect(fresh).toContain(NEW_DEPLOY.body);
      expect(fresh).not.toContain("status: superseded");
    },
    T,
  );
});

describe("superseded entries in the entries list", () => {
  test(
    "hidden by default; 'Show superseded' lists them marked, the badge opens the newer entry",
    async () => {
      const by = /^superseded_by: (\S+)$/m.exec(readFileSync(entryFile(deployId), "utf8"))![1]!;
      await go("#/entries", "#entries-table");
      expect(await page.locator(`tr[data-row="${by}"]`).count()).toBe(1);
      expect(await page.locator(`tr[data-row="${deployId}"]`).count()).toBe(0);
      expect(await page.locator(".badge").count()).toBe(0);

      await page.check("#f-superseded");
      await page.click("form[role=search] button[type=submit]");
      await page.waitForSelector(`tr[data-row="${deployId}"]`);
      expect(page.url()).toContain("superseded=1");
      const row = page.locator(`tr[data-row="${deployId}"]`);
      expect(await row.getAttribute("class")).toContain("superseded");
      expect(await row.locator(".badge").getAttribute("data-superseded-by")).toBe(by);
      expect(await row.locator(".badge").textContent()).toBe(`superseded by ${by.slice(-8)}`); // the handle
      expect(await page.isChecked("#f-superseded")).toBe(true);
      const found: string[] = [];
      for (const v of await axe(page)) found.push(`${v.id} (${v.impact}) ${v.help} at ${v.nodes.join(", ")}`);
      expect(found).toEqual([]);
      await screenshot(page, "entries-superseded-light");

      await row.locator(".badge button").click();
      await page.waitForSelector("#entry-dialog");
      expect(await page.textContent("#dialog-title")).toBe(NEW_DEPLOY.title);
      await page.keyboard.press("Escape");

      // The API agrees: one more entry with the filter, and the same default as `coffer list`.
      const count = async (q: string) =>
        ((await (await served.api(`/api/v1/ui/entries?scope=${projectId}${q}`)).json()) as { total: number }).total;
      const cli = sb.run(["list", "--json"], { cwd: repo }).json();
      const cliAll = sb.run(["list", "--all", "--json"], { cwd: repo }).json();
      expect(await count("")).toBe(cli.total);
      expect(await count("&superseded=1")).toBe(cliAll.total);
      expect(await count("&superseded=1")).toBe((await count("")) + 1);
      // A superseded entry has no search-index document (never recalled): grep mode still finds it.
      expect(await count("&mode=grep&q=hand")).toBe(0);
      expect(await count("&mode=grep&q=hand&superseded=1")).toBe(1);
      expect(await count("&q=hand&superseded=1")).toBe(0);
    },
    T,
  );

  test("no script errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
