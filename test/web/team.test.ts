/**
 * The team lane in the web UI (issue 28): its own scope named after the repository, entries not
 * committed yet marked (read from .git/index), and "Promote to team" on a personal entry.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { remember, sandbox, writeTeamProposal } from "../kit";
import { type Browser, launch, loggedInPage, type ServedUi, serveUi } from "./_browser";

const sb = sandbox("coffer-web-team-");
let repo = "";
let served: ServedUi;
let browser: Browser;
let page: Page;
let committed = "";
let personal = "";

const T = 60_000;
const git = (...args: string[]) => {
  const p = Bun.spawnSync(["git", ...args], {
    cwd: repo,
    env: {
      ...sb.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "T",
      GIT_AUTHOR_EMAIL: "t@e",
      GIT_COMMITTER_NAME: "T",
      GIT_COMMITTER_EMAIL: "t@e",
    },
  });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
};
beforeAll(async () => {
  repo = sb.repo("gizmo", "https://github.com/acme/gizmo.git");
  committed = remember(sb, repo, "The gizmo build needs protoc 25 on PATH", "--scope", "team", "--kind", "gotcha");
  git("add", ".coffer");
  git("commit", "-q", "-m", "team memory");
  remember(sb, repo, "Gizmo releases are cut on Thursdays", "--scope", "team");
  personal = remember(sb, repo, "The gizmo staging database is reset nightly");
  served = await serveUi(sb, repo);
  browser = await launch();
  page = await loggedInPage(browser.context, served.loginUrl);
}, T);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  sb.cleanup();
});

test(
  "the team lane is its own scope, named after the repository; an uncommitted entry is marked",
  async () => {
    await page.goto(`${served.url}/#/projects`);
    await page.waitForSelector("text=team gizmo");
    await page.goto(`${served.url}/#/entries`);
    await page.waitForSelector("#entries-table >> text=Gizmo releases are cut on Thursdays");
    const row = (text: string) => page.locator("#entries-table tbody tr", { hasText: text });
    expect(await row("Gizmo releases").textContent()).toContain("team gizmo");
    expect(await row("Gizmo releases").locator("[data-uncommitted]").count()).toBe(1);
    expect(await row("protoc 25").textContent()).toContain("team gizmo");
    expect(await row("protoc 25").locator("[data-uncommitted]").count()).toBe(0);
    // modified after the commit: marked again
    const file = join(repo, ".coffer", "entries", `${committed}.md`);
    writeFileSync(file, readFileSync(file, "utf8").replace("protoc 25", "protoc 26"));
    await page.reload();
    await page.waitForSelector("#entries-table >> text=protoc 26");
    expect(await row("protoc 26").locator("[data-uncommitted]").count()).toBe(1);
  },
  T,
);

test(
  "Promote to team on a personal entry writes .coffer/entries/<id>.md, never staged",
  async () => {
    await page.goto(`${served.url}/#/entries`);
    await page.waitForSelector("#entries-table >> text=staging database is reset nightly");
    await page.locator("#entries-table tbody tr", { hasText: "staging database" }).locator("button.title").click();
    await page.waitForSelector("#entry-promote");
    await page.click("#entry-promote");
    await page.waitForSelector("#toast >> text=Promoted");
    const file = join(repo, ".coffer", "entries", `${personal}.md`);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain("staging database is reset nightly");
    const row = page.locator("#entries-table tbody tr", { hasText: "staging database" });
    await page.waitForSelector("#entries-table >> text=staging database is reset nightly");
    expect(await row.textContent()).toContain("team gizmo");
    expect(await row.locator("[data-uncommitted]").count()).toBe(1);
    // a team entry offers no promote
    await row.locator("button.title").click();
    await page.waitForSelector("#entry-scope >> text=not committed");
    expect(await page.locator("#entry-promote").count()).toBe(0);
  },
  T,
);

test(
  "the Trash says a promoted entry's personal copy is in the team lane now, and offers no Restore (issue 37)",
  async () => {
    await page.goto(`${served.url}/#/trash`);
    await page.reload(); // the entry dialog the test before left open
    const row = page.locator("#trash-table tbody tr", { hasText: "staging database" });
    await row.waitFor();
    expect(await row.textContent()).toContain("in the team lane now");
    expect(await row.locator("button", { hasText: "Restore" }).count()).toBe(0);
    // the route refuses too: one id, two entries
    const r = await page.evaluate(
      async (id) => (await fetch(`/api/v1/ui/entries/${id}/restore`, { method: "POST" })).status,
      personal,
    );
    expect(r).toBeGreaterThanOrEqual(400);
    expect(existsSync(join(sb.cofferHome, "state", "trash"))).toBe(true);
  },
  T,
);

test(
  "the Inbox lists a team-lane proposal; Approve promotes it into .coffer/entries/",
  async () => {
    const entry = remember(sb, repo, "Gizmo fixtures are regenerated with make fixtures", "--kind", "convention");
    const { id: pid, label } = sb.run(["status", "--json"], { cwd: repo }).json().project;
    const id = "01KTEAMPR0P0SA10000000000W";
    writeTeamProposal(
      sb,
      id,
      { id: pid, label },
      { id: entry, title: "Gizmo fixtures are regenerated with make fixtures" },
    );
    await page.goto(`${served.url}/#/inbox`);
    await page.reload(); // the entry dialog the test before left open
    const item = page.locator(`#team-proposal-list > li[data-team-proposal="${id}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain("Gizmo fixtures are regenerated");
    await item.locator("button", { hasText: "Approve" }).click();
    await page.waitForSelector("#toast >> text=Promoted");
    expect(readFileSync(join(repo, ".coffer", "entries", `${entry}.md`), "utf8")).toContain("make fixtures");
    await page.waitForSelector("#no-team-proposals");
    expect(existsSync(join(sb.cofferHome, "inbox", `team-${id}.json`))).toBe(false);
  },
  T,
);
