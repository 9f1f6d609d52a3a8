/**
 * Browser helpers for the web UI tests: Debian's Chromium driven by playwright-core (headless,
 * no sandbox, a fresh profile per launch), and `coffer serve` started with its login URL.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { Sandbox } from "../kit";
import { type Served, startServe } from "../kit";

export const CHROMIUM = process.env.COFFER_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(import.meta.dir, "screenshots");

/** Chromium flags for a headless run in a container (also used by scripts/bench/web.ts). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export type Browser = { context: BrowserContext; close: () => Promise<void> };

/** A headless Chromium with a throwaway profile directory. */
export async function launch(opts: { colorScheme?: "light" | "dark" } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "coffer-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
    colorScheme: opts.colorScheme ?? "light",
    locale: "en-US",
    timezoneId: "UTC",
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type ServedUi = Served & { loginUrl: string };

/** `coffer serve --port 0` in `cwd`, once it has printed its one-time login URL. */
export async function serveUi(sb: Sandbox, cwd: string): Promise<ServedUi> {
  const served = await startServe(sb, cwd, ["--no-worker"]);
  const deadline = Date.now() + 5000;
  let m: RegExpExecArray | null = null;
  while (!(m = /Web UI: (http:\/\/\S+\/login\?code=\S+)/.exec(served.stdout()))) {
    if (Date.now() > deadline) throw new Error(`no login URL printed:\n${served.stdout()}\n${served.stderr()}`);
    await Bun.sleep(20);
  }
  return { ...served, loginUrl: m[1]! };
}

/** A fresh one-time login URL from the running server (bearer token). */
export async function newLoginUrl(served: Served): Promise<string> {
  const res = await served.api("/api/v1/ui/login-link");
  return ((await res.json()) as { url: string }).url;
}

/** Log a new page in through a one-time URL; resolves on the Entries page. */
export async function loggedInPage(context: BrowserContext, loginUrl: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(loginUrl);
  await page.waitForSelector("#result-status:not(:has-text('Searching'))");
  return page;
}

let axeSource: string | undefined;

/** Run axe-core in the page; returns the serious and critical violations. */
export async function axe(page: Page): Promise<{ id: string; impact: string; help: string; nodes: string[] }[]> {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') does not apply.
  await page.evaluate(`${axeSource};0`);
  const result = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5) })))`,
  )) as { id: string; impact: string; help: string; nodes: string[] }[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
