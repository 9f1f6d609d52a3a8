/**
 * The routes behind the web UI: `/api/v1/projects` and `/api/v1/ui/...`. They sit behind the
 * same guard as the rest of `/api` (bearer token, or the UI's session cookie + CSRF header), and
 * work on any scope by its key (`global` or a project id), since a person browses every project,
 * not only the one `coffer serve` was started in.
 */
import { HttpError, notFound, toHttpError } from "../serve/errors";
import { router } from "../serve/router";
import { entryRoutes } from "./routes/entries";
import { healthRoutes } from "./routes/health";
import { inboxRoutes } from "./routes/inbox";
import { ruleRoutes } from "./routes/rules";
import type { UiContext } from "./routes/shared";
import { staleRoutes } from "./routes/stale";

export type { UiContext } from "./routes/shared";

const { route, match } = router<UiContext>();
for (const add of [entryRoutes, staleRoutes, ruleRoutes, inboxRoutes, healthRoutes]) add(route);

/** True for the paths this module answers. */
export function isUiApiPath(pathname: string): boolean {
  return pathname === "/api/v1/projects" || pathname.startsWith("/api/v1/ui/");
}

export async function handleUiApi(req: Request, url: URL, ctx: UiContext): Promise<Response> {
  const hit = match(req.method, url.pathname);
  if ("handler" in hit) {
    try {
      return await hit.handler(req, url, hit.params, ctx);
    } catch (err) {
      throw toHttpError(err);
    }
  }
  const { allowed } = hit;
  if (allowed.length)
    throw new HttpError(
      405,
      "method_not_allowed",
      `${req.method} is not allowed on ${url.pathname}`,
      { allowed },
      {
        allow: allowed.join(", "),
      },
    );
  throw notFound(`no route ${req.method} ${url.pathname}`);
}
