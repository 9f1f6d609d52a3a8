/**
 * The web UI's own paths in `coffer serve`: the page and its assets (bundled into the binary by
 * `bun build --compile` through an HTML import), `/login?code=` (GET: the page, while the code is
 * unused, else a page that says what to do; the page then POSTs the code to the same URL for the
 * session cookie and its key, see auth.ts), `/session-state` (is this browser logged in? asked
 * before any /api call, so a logged-out page makes no 401 requests), `/favicon.ico` and `/logout`
 * (a POST from the page with its key, see auth.ts).
 * The page never sees the bearer token.
 */
import { basename, dirname, join } from "node:path";
import { HttpError } from "../serve/errors";
import page from "./app/index.html";
import type { WebAuth } from "./auth";

type Asset = { body: () => Promise<Blob | Uint8Array | string>; type: string };

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const PAGE_HEADERS = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

let assets: Promise<Map<string, Asset>> | undefined;

/**
 * `/` -> the HTML, `/<chunk>` -> each bundled file. In the compiled binary the HTML import lists
 * its prebuilt files; from source (`bun src/cli.ts serve`) the page is bundled once on first use.
 */
function loadAssets(): Promise<Map<string, Asset>> {
  assets ??= (async () => {
    const map = new Map<string, Asset>();
    if (page.files?.length) {
      for (const f of page.files) {
        const asset = { body: async () => Bun.file(f.path), type: f.headers["content-type"] };
        map.set(f.loader === "html" ? "/" : `/${basename(f.path)}`, asset);
      }
      return map;
    }
    const built = await Bun.build({
      entrypoints: [join(dirname(import.meta.path), "app", "index.html")],
      minify: true,
      target: "browser",
    });
    if (!built.success) throw new Error(`bundling the web UI failed: ${built.logs.join("\n")}`);
    for (const out of built.outputs) {
      const bytes = new Uint8Array(await out.arrayBuffer());
      const name = basename(out.path);
      map.set(name.endsWith(".html") ? "/" : `/${name}`, { body: async () => bytes, type: out.type });
    }
    return map;
  })();
  return assets;
}

function redirect(to: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location: to, "cache-control": "no-store", ...headers } });
}

/** Serve a non-API path, or throw the 404/405 the server renders. */
export async function handlePage(req: Request, url: URL, auth: WebAuth): Promise<Response> {
  const post = url.pathname === "/logout" || url.pathname === "/login";
  if (req.method !== "GET" && req.method !== "HEAD" && !(post && req.method === "POST"))
    throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, null, {
      allow: "GET",
    });
  // Only our own page may log in or out: it always sends its Origin on a POST.
  const ownPost = () => req.method === "POST" && req.headers.get("origin") === `http://${req.headers.get("host")}`;
  if (url.pathname === "/login") {
    const loginCode = url.searchParams.get("code") ?? "";
    if (!auth.liveLogin(loginCode)) {
      if (req.method === "POST")
        return new Response(`${DEAD_LINK}\n`, {
          status: 403,
          headers: { "content-type": "text/plain; charset=utf-8", ...PAGE_HEADERS },
        });
      return deadLinkPage(url);
    }
    if (req.method !== "POST") return servePage("/");
    if (!ownPost()) throw new HttpError(403, "forbidden", "log in by opening the login link in a browser");
    const session = auth.redeem(loginCode)!;
    return new Response(JSON.stringify({ key: session.key }), {
      headers: {
        "content-type": "application/json",
        "cache-control": "no-store",
        "set-cookie": auth.sessionCookie(session.sid),
      },
    });
  }
  if (url.pathname === "/session-state") {
    // 200 either way: the page asks this before any /api call, so being logged out is no error.
    return new Response(JSON.stringify({ logged_in: auth.authorize(req) }), {
      headers: { "content-type": "application/json", "cache-control": "no-store", ...PAGE_HEADERS },
    });
  }
  if (url.pathname === "/favicon.ico")
    return servePage([...(await loadAssets()).keys()].find((k) => k.endsWith(".svg")) ?? "/favicon.ico");
  if (url.pathname === "/logout") {
    // Another site's form, a link, or a replayed cookie (even with a forged Origin: the page's key
    // is asked too) cannot log anyone out.
    if (!ownPost() || !auth.logout(req))
      throw new HttpError(403, "forbidden", "log out with the page's Log out button");
    return redirect("/", { "set-cookie": auth.clearCookie() });
  }
  return servePage(url.pathname);
}

const DEAD_LINK =
  "This login link was already used or has expired: each link logs in one browser, once. Run `coffer serve --login` for a new link from the running server (or restart `coffer serve`, which prints one).";

/** A dead login link's answer: a page in the app's own style that says what to do (no script). */
async function deadLinkPage(url: URL): Promise<Response> {
  const map = await loadAssets();
  const css = [...map.keys()].find((k) => k.endsWith(".css"));
  const icon = [...map.keys()].find((k) => k.endsWith(".svg"));
  const port = url.port || "80";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="color-scheme" content="light dark" />
<title>Login link used · Coffer</title>
${icon ? `<link rel="icon" type="image/svg+xml" href="${icon}" />` : ""}
${css ? `<link rel="stylesheet" href="${css}" />` : ""}
</head>
<body>
<header class="top"><span class="brand">Coffer</span></header>
<main id="main" class="dead-link">
<h1>This login link was already used or has expired</h1>
<p>Each link logs in one browser, once. For a new link from the server that is running, run:</p>
<pre><code>coffer serve --login${port === "26333" ? "" : ` --port ${port}`}</code></pre>
<p class="muted">Or restart <code>coffer serve</code>: it prints a new link when it starts. Already logged in here? <a href="/">Open Coffer</a>.</p>
</main>
</body>
</html>
`;
  return new Response(html, {
    status: 403,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...PAGE_HEADERS },
  });
}

/** The page (`/`: the app routes with the hash, #/entries) or one of its bundled assets. */
async function servePage(path: string): Promise<Response> {
  const map = await loadAssets();
  const asset = map.get(path);
  if (!asset) throw new HttpError(404, "not_found", `no route ${path}`);
  const isHtml = path === "/";
  return new Response(await asset.body(), {
    headers: {
      "content-type": asset.type,
      "cache-control": isHtml ? "no-store" : "public, max-age=31536000, immutable",
      ...PAGE_HEADERS,
    },
  });
}
