/**
 * What `coffer serve` lets a UI plug in (the web UI in src/web, mounted by the serve command so
 * that serve/ never imports it): its pages, a cookie check the /api guard asks before demanding
 * the bearer token, its own /api routes, and the login link printed at start.
 */
export type UiMount = {
  /** Every non-/api, non-/mcp path: the page, its assets, login and logout. */
  page: (req: Request, url: URL) => Promise<Response>;
  /** True when the request acts for a logged-in person; may throw a 403 HttpError (CSRF, origin). */
  authorized: (req: Request) => boolean;
  /** The /api paths the UI answers itself. */
  owns: (url: URL) => boolean;
  api: (req: Request, url: URL) => Promise<Response>;
  /** A fresh one-time login URL under `base`. */
  loginUrl: (base: string) => string;
};

export type UiFactory = (info: { port: number; token: string; cwd: string; version: string }) => UiMount;
