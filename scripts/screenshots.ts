/**
 * Screenshots of every page of the web UI, light and dark, for docs/screenshots/ (issue 29).
 * A throwaway store with a small made-up project (entries, rules, a handoff, hook sessions, a
 * forgotten entry), the compiled `coffer serve`, and Debian's Chromium through playwright-core.
 * Also the first-run page (an empty store), and every page 390 px wide (a phone). Every page is checked
 * on the way: no sideways scroll at 390 px, no script error, no failed request.
 *
 *   bun scripts/screenshots.ts [--out docs/screenshots]      (COFFER_BIN selects the binary)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/web/_browser";
import { argOf, BIN, benchSandbox, fakeRepo } from "./bench/_common";

const OUT = resolve(argOf("out", "docs/screenshots"));
const { root, env } = benchSandbox("screenshots");
const repo = fakeRepo(join(root, "work", "shop"), "https://github.com/acme/shop.git");
const problems: string[] = [];

function coffer(args: string[], stdin?: string): string {
  const p = Bun.spawnSync([BIN, ...args], {
    cwd: repo,
    env,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`coffer ${args.join(" ")} exited ${p.exitCode}: ${p.stderr}`);
  return p.stdout.toString();
}

const hook = (event: string, payload: Record<string, unknown>) =>
  coffer(
    ["hook", event, "--agent", "claude"],
    JSON.stringify({ transcript_path: "/tmp/s.jsonl", cwd: repo, ...payload }),
  );

function seed(): void {
  const remember = (text: string, ...args: string[]) => coffer(["remember", text, ...args]);
  remember(
    "Stripe webhooks must be verified with the raw request body; express.json() before the webhook route breaks signature checks.",
    "--kind",
    "gotcha",
    "--tags",
    "stripe,webhooks",
  );
  remember("We deploy with make release from main, never git push --tags", "--kind", "convention", "--tags", "release");
  remember(
    "Orders are stored in Postgres 16; the read replica lags by up to a minute",
    "--kind",
    "fact",
    "--tags",
    "db",
  );
  remember("Prices are integers in cents everywhere, never floats", "--kind", "decision", "--tags", "money");
  remember("Checkout retries a declined card once after 3DS", "--title", "Checkout retry policy", "--kind", "decision");
  remember("Answer tersely and cite files with line numbers", "--scope", "global", "--kind", "preference");
  remember("Use pnpm, never npm, in every repository", "--scope", "global", "--kind", "convention");
  const gone = remember("A scratch note about the old cron job", "--json");
  coffer(["forget", JSON.parse(gone).id, "--yes"]);
  // Two entries naming what the checkout no longer has: the Stale page lists them.
  mkdirSync(join(repo, "src", "payments"), { recursive: true });
  writeFileSync(join(repo, "src", "payments", "refunds.ts"), "export {};\n");
  writeFileSync(
    join(repo, "package.json"),
    `${JSON.stringify({ scripts: { test: "bun test", "db:migrate": "bun run migrate.ts" } })}\n`,
  );
  remember("Refunds are issued through src/billing/refunds.ts, never by hand in the dashboard", "--kind", "convention");
  remember("After a migration, run `npm run db:seed` to load the demo catalogue", "--kind", "fact", "--tags", "db");
  coffer(["stale"]);
  coffer(["rules", "add", "Run bun test before every commit"]);
  coffer(["rules", "add", "Never edit files under dist/ by hand"]);
  coffer(["rules", "add", "Prefer small pull requests", "--scope", "global"]);
  coffer(["handoff", "set", "Half-way through the refund flow: next, wire the webhook handler to the ledger."]);
  hook("session-start", {
    session_id: "9f1c2d7e-0000-4000-8000-000000000001",
    hook_event_name: "SessionStart",
    source: "startup",
  });
  for (const prompt of ["how do we verify stripe webhooks?", "where are orders stored, and how do prices work?"])
    hook("prompt", { session_id: "9f1c2d7e-0000-4000-8000-000000000001", hook_event_name: "UserPromptSubmit", prompt });
  hook("compact", {
    session_id: "9f1c2d7e-0000-4000-8000-000000000001",
    hook_event_name: "PreCompact",
    trigger: "auto",
  });
  hook("prompt", {
    session_id: "9f1c2d7e-0000-4000-8000-000000000001",
    hook_event_name: "UserPromptSubmit",
    prompt: "remind me how we deploy a release",
  });
}

type Serve = { url: string; login: () => Promise<string>; stop: () => void };

async function serve(): Promise<Serve> {
  const proc = Bun.spawn([BIN, "serve", "--port", "0", "--no-worker"], {
    cwd: repo,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 15_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /Web UI: (http:\/\/[^/\s]+)\/login\?code=\S+/.exec(out))) {
    if (Date.now() > deadline) throw new Error(`coffer serve printed no login link:\n${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`coffer serve exited:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  const url = m[1]!;
  const token = readFileSync(join(env.COFFER_HOME, "state", "token"), "utf8").trim();
  return {
    url,
    login: async () => {
      const r = await fetch(`${url}/api/v1/ui/login-link`, { headers: { authorization: `Bearer ${token}` } });
      return ((await r.json()) as { url: string }).url;
    },
    stop: () => proc.kill("SIGTERM"),
  };
}

const PAGES: [name: string, hash: string, ready: string][] = [
  ["entries", "#/entries", "#entries-table"],
  ["projects", "#/projects", "#projects-table"],
  ["rules", "#/rules", "[data-host=claude]"],
  ["sessions", "#/sessions", "#sessions-table"],
  ["inbox", "#/inbox", "#model-state"],
  ["stale", "#/stale", "#stale-list"],
  ["trash", "#/trash", "#trash-table"],
  ["stats", "#/stats", ".cards"],
  ["health", "#/health", "#doctor-table"],
];

async function loggedIn(context: BrowserContext, s: Serve): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(await s.login());
  await page.waitForSelector("#result-status:not(:has-text('Searching'))");
  return page;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`  ${name}.png`);
}

async function noSidewaysScroll(page: Page, what: string): Promise<void> {
  const [sw, cw] = (await page.evaluate(
    "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
  )) as number[];
  if (sw! > cw!) problems.push(`${what}: scrolls sideways at ${cw} px (scrollWidth ${sw})`);
}

mkdirSync(OUT, { recursive: true });
const browserDir = join(root, "chromium");
let s = await serve();
try {
  for (const theme of ["light", "dark"] as const) {
    const context = await chromium.launchPersistentContext(join(browserDir, theme), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 860 },
      colorScheme: theme,
      locale: "en-US",
      timezoneId: "UTC",
    });
    try {
      if (theme === "light") {
        // The store is still empty: the first-run hint.
        const page = await loggedIn(context, s);
        await page.waitForSelector("#first-run");
        await shoot(page, "first-run-light");
        await page.close();
        s.stop();
        seed();
        s = await serve();
      }
      const page = await loggedIn(context, s);
      for (const [name, hash, ready] of PAGES) {
        await page.goto(`${s.url}/${hash}`);
        await page.waitForSelector(ready);
        if (name === "sessions") await page.click("#sessions-table summary");
        await shoot(page, `${name}-${theme}`);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      for (const [name, hash, ready] of PAGES) {
        await page.goto(`${s.url}/${hash}`);
        await page.waitForSelector(ready);
        if (name === "sessions") await page.click("#sessions-table summary");
        await noSidewaysScroll(page, name);
        await shoot(page, `${name}-390px-${theme}`);
      }
      await page.close();
    } finally {
      await context.close();
    }
  }
} finally {
  s.stop();
  if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
}
if (problems.length) {
  console.error(`problems:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`screenshots in ${OUT}`);
