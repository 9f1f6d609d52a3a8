/** The web UI: a hash router over the pages, the theme switch, and the logged-out screen. */

import { clearToast, errorBox, h, loadScopes, loggedIn, logOut, redeemLogin, whenSession } from "./lib";
import { entriesPage } from "./pages/entries";
import { healthPage } from "./pages/health";
import { inboxPage } from "./pages/inbox";
import { projectsPage } from "./pages/projects";
import { rulesPage } from "./pages/rules";
import { sessionsPage } from "./pages/sessions";
import { stalePage } from "./pages/stale";
import { statsPage } from "./pages/stats";
import { trashPage } from "./pages/trash";

// Framed by another site? Show nothing (the server also forbids framing).
if (window.top !== window.self) document.documentElement.replaceChildren();

const PAGES: Record<string, { title: string; render: (main: HTMLElement) => Promise<void> }> = {
  entries: { title: "Entries", render: entriesPage },
  projects: { title: "Projects", render: projectsPage },
  rules: { title: "Rules", render: rulesPage },
  sessions: { title: "Sessions", render: sessionsPage },
  inbox: { title: "Inbox", render: inboxPage },
  stale: { title: "Stale", render: stalePage },
  trash: { title: "Trash", render: trashPage },
  stats: { title: "Stats", render: statsPage },
  health: { title: "Health", render: healthPage },
};

const THEMES = ["auto", "light", "dark"] as const;

function applyTheme(theme: string): void {
  if (theme === "auto") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.setAttribute("data-theme", theme);
  const b = document.getElementById("theme");
  if (b) b.textContent = `Theme: ${theme}`;
}

function setupTheme(): void {
  let theme = localStorage.getItem("coffer-theme") ?? "auto";
  applyTheme(theme);
  document.getElementById("theme")?.addEventListener("click", () => {
    theme = THEMES[(THEMES.indexOf(theme as (typeof THEMES)[number]) + 1) % THEMES.length]!;
    localStorage.setItem("coffer-theme", theme);
    applyTheme(theme);
  });
}

let renderId = 0;
let shown = "";

async function render(focus: boolean): Promise<void> {
  const main = document.getElementById("main")!;
  const name = location.hash.replace(/^#\/?/, "").split(/[?#]/)[0] || "entries";
  const page = PAGES[name] ?? PAGES.entries!;
  // A toast belongs to the page it was raised on; a re-render of the same page (after an edit) keeps it.
  if (shown && shown !== page.title) clearToast();
  shown = page.title;
  for (const a of document.querySelectorAll<HTMLAnchorElement>("[data-nav]")) {
    if (a.dataset.nav === name) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.title = `${page.title} · Coffer`;
  const id = ++renderId;
  try {
    await page.render(main);
  } catch (err) {
    if (id === renderId) main.replaceChildren(h("h1", {}, page.title), errorBox(err));
  }
  // A new page starts at the top with the navigation in view (focusing <main> would scroll it away on a phone).
  if (focus && id === renderId) {
    main.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }
}

/**
 * Each body cell is named by its column (`data-label`): a narrow window shows a table's rows as
 * stacked blocks, the names in front of the values (style.css).
 */
function labelCells(root: HTMLElement): void {
  for (const table of root.querySelectorAll<HTMLTableElement>("table")) {
    const head = [...(table.tHead?.rows[0]?.cells ?? [])].map((c) => c.textContent?.trim() ?? "");
    if (!head.length) continue;
    for (const body of table.tBodies)
      for (const row of body.rows) {
        if (row.dataset.labelled) continue;
        row.dataset.labelled = "1";
        for (const [i, cell] of [...row.cells].entries()) if (head[i]) cell.dataset.label = head[i];
      }
  }
}

function loggedOut(main: HTMLElement): void {
  document.querySelector("nav")?.setAttribute("hidden", "");
  document.getElementById("logout")?.setAttribute("hidden", "");
  main.replaceChildren(
    h("h1", {}, "Log in to Coffer"),
    h(
      "p",
      {},
      "Open the one-time login link that ",
      h("code", {}, "coffer serve"),
      " printed in its terminal (it looks like http://127.0.0.1:<port>/login?code=…).",
    ),
    h(
      "p",
      { class: "muted" },
      "Each link works once. For another browser, run ",
      h("code", {}, "coffer serve --login"),
      " (a new link from the running server), or restart coffer serve.",
    ),
  );
}

async function start(): Promise<void> {
  setupTheme();
  const main = document.getElementById("main")!;
  new MutationObserver(() => labelCells(main)).observe(main, { childList: true, subtree: true });
  // The form cannot send the page's key: the logout is a fetch that does.
  document.getElementById("logout")?.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void logOut();
  });
  const loginError = await redeemLogin().catch((err: unknown) => String(err));
  if (loginError) {
    loggedOut(main);
    main.prepend(errorBox(loginError));
    return;
  }
  if (!(await loggedIn())) {
    loggedOut(main);
    return;
  }
  // The session, the scopes and the page's own data load side by side.
  const sessionP = whenSession();
  void loadScopes().catch(() => {});
  const first = render(false);
  try {
    const s = await sessionP;
    if (!s) {
      renderId++;
      loggedOut(main);
      return;
    }
  } catch (err) {
    renderId++;
    main.replaceChildren(errorBox(err));
    return;
  }
  window.addEventListener("hashchange", () => void render(true));
  document.addEventListener("keydown", (ev) => {
    // "/" jumps to the search box, as on many sites; not while typing.
    const t = ev.target as HTMLElement | null;
    if (ev.key === "/" && !(t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) && !t?.isContentEditable) {
      const q = document.getElementById("f-q");
      if (q) {
        ev.preventDefault();
        q.focus();
      }
    }
  });
  await first;
}

void start();
