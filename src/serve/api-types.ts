/**
 * The JSON bodies `/api/v1` answers, defined once for both ends: the server's handlers build them
 * (`satisfies`), the web app (src/web/app, bundled for the browser) reads them. Types only, and
 * self-contained: the app type-checks this file without Node's or the store's types.
 */

/** Every failure: `code` is what a client branches on (serve/errors.ts maps each error's code to it). */
export type ErrorBody = { error: { code: string; message: string; details: unknown } };
