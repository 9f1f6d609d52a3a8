/**
 * The web UI's own paths in `coffer serve`: the page and its assets (bundled into the binary by
 * `bun build --compile` through an HTML import), `/login?code=` (GET: the page, while the code is
 * unused; the page then POSTs the code to the same URL for the session cookie and its key, see
 * auth.ts) and `/logout`. The page never sees the bearer token.
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
    if (!auth.liveLogin(loginCode))
      return new Response(
        "This login link was already used or has expired. Restart `coffer serve` for a new one, or ask the running server for one: GET /api/v1/ui/login-link with the bearer token.\n",
        { status: 403, headers: { "content-type": "text/plain; charset=utf-8", ...PAGE_HEADERS } },
      );
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
  if (url.pathname === "/logout") {
    // Another site's form, a link, or a replayed cookie cannot log anyone out.
    if (!ownPost()) throw new HttpError(403, "forbidden", "log out with the page's Log out button");
    auth.logout(req);
    return redirect("/", { "set-cookie": auth.clearCookie() });
  }
  return servePage(url.pathname);
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
