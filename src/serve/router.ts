/**
 * The method + path table behind both `/api` route sets (src/serve/v1-routes.ts, src/web/ui-routes.ts):
 * `{name}` segments become URI-decoded params. Matching only; each caller runs the handler and
 * turns what it throws into a status with `toHttpError` (errors.ts). Also the query-string integer
 * schema both use.
 */
import * as v from "valibot";
import { badRequest } from "./errors";

export type Params = Record<string, string>;
type Handler<C> = (req: Request, url: URL, params: Params, ctx: C) => Promise<Response> | Response;
type Route<C> = { method: string; pattern: RegExp; keys: string[]; handler: Handler<C> };

/** A route table: `route` adds one, `match` finds the handler for a request or the methods its path allows. */
export function router<C>() {
  const routes: Route<C>[] = [];
  return {
    route(method: string, path: string, handler: Handler<C>): void {
      const keys: string[] = [];
      const pattern = new RegExp(
        `^${path.replace(/\{(\w+)\}/g, (_m, k: string) => {
          keys.push(k);
          return "([^/]+)";
        })}$`,
      );
      routes.push({ method, pattern, keys, handler });
    },
    /** The first route for this method and path, with its params; else the methods the path allows (maybe none). */
    match(method: string, pathname: string): { handler: Handler<C>; params: Params } | { allowed: string[] } {
      const allowed: string[] = [];
      for (const r of routes) {
        const m = r.pattern.exec(pathname);
        if (!m) continue;
        if (r.method !== method) {
          allowed.push(r.method);
          continue;
        }
        const params: Params = {};
        r.keys.forEach((k, i) => {
          try {
            params[k] = decodeURIComponent(m[i + 1]!);
          } catch {
            throw badRequest(`malformed path segment for ${k}`);
          }
        });
        return { handler: r.handler, params };
      }
      return { allowed };
    },
  };
}

/** A query-string integer in [min, max], as a number. */
export const intString = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `${name} must be an integer`),
    v.transform(Number),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );
