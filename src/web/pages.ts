/**
 * The web UI's own paths in `coffer serve`: the page and its assets (bundled into the binary by
 * `bun build --compile` through an HTML import), `/login?code=` (one-time code -> session cookie
 * -> redirect to `/`) and `/logout`. The page holds no secret: it learns its CSRF token from
 * `/api/v1/ui/session` with the cookie, and never sees the bearer token.
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
  if (req.method !== "GET" && req.method !== "HEAD" && !(url.pathname === "/logout" && req.method === "POST"))
    throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, null, {
      allow: "GET",
    });
  if (url.pathname === "/login") {
    const sid = auth.redeem(url.searchParams.get("code") ?? "");
    if (!sid)
      return new Response(
        "This login link was already used or has expired. Restart `coffer serve` for a new one, or ask the running server for one: GET /api/v1/ui/login-link with the bearer token.\n",
        { status: 403, headers: { "content-type": "text/plain; charset=utf-8", ...PAGE_HEADERS } },
      );
    return redirect("/", { "set-cookie": auth.sessionCookie(sid) });
  }
  if (url.pathname === "/logout") {
    // Only a POST from our own page: another site's form (or a link) cannot log anyone out.
    const origin = req.headers.get("origin");
    if (req.method !== "POST" || (origin !== null && origin !== `http://${req.headers.get("host")}`))
      throw new HttpError(403, "forbidden", "log out with the page's Log out button");
    auth.logout(req);
    return redirect("/", { "set-cookie": auth.clearCookie() });
  }
  const map = await loadAssets();
  // The app routes with the hash (#/entries), so every page is `/`.
  const asset = map.get(url.pathname);
  if (!asset) throw new HttpError(404, "not_found", `no route ${req.method} ${url.pathname}`);
  const isHtml = url.pathname === "/";
  return new Response(await asset.body(), {
    headers: {
      "content-type": asset.type,
      "cache-control": isHtml ? "no-store" : "public, max-age=31536000, immutable",
      ...PAGE_HEADERS,
    },
  });
}
