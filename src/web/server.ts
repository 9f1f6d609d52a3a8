/**
 * The web UI as `coffer serve` mounts it: the page and login paths, the UI's API routes, and
 * the cookie/CSRF check the server's `/api` guard asks before demanding the bearer token.
 */
import { hasBearer } from "../serve/auth";
import type { UiFactory, UiMount } from "../serve/mount";
import { WebAuth } from "./auth";
import { handlePage } from "./pages";
import { handleUiApi, isUiApiPath } from "./ui-routes";

/** The web UI for `coffer serve` (see UiMount): the serve command passes this factory in. */
export const createWeb: UiFactory = (opts): UiMount => {
  const auth = new WebAuth(opts.port);
  return {
    page: (req, url) => handlePage(req, url, auth),
    authorized: (req) => auth.authorize(req),
    owns: (url) => isUiApiPath(url.pathname),
    api: (req, url) =>
      handleUiApi(req, url, { cwd: opts.cwd, auth, bearer: hasBearer(req, opts.token), version: opts.version }),
    loginUrl: (base) => `${base}/login?code=${auth.newLoginCode()}`,
  };
};
