/** Small DOM and API helpers shared by the pages. Text always goes in as text, never as HTML. */

import type { ErrorBody, Projects, Scope, SessionInfo } from "../../serve/api-types";

export type { Scope } from "../../serve/api-types";

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | ((ev: Event) => void)>;

/** Create an element: attributes (`on*` are listeners, booleans toggle), then children as text or nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (v === true) el.setAttribute(k, "");
    else if (k === "value" && "value" in el) (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The page's half of the session (the other half is the HttpOnly cookie): kept in this origin's
 * storage, which another app on another port of 127.0.0.1 cannot read although it receives the
 * cookie; sent as `x-coffer-key` on every API call.
 */
const KEY_STORE = "coffer-session-key";
let key = localStorage.getItem(KEY_STORE) ?? "";

/**
 * On `/login?code=...`: trade the one-time code for the session (cookie + key) and leave the
 * login URL. Returns an error message when the code is no good.
 */
export async function redeemLogin(): Promise<string | undefined> {
  if (location.pathname !== "/login") return undefined;
  const search = location.search;
  history.replaceState(null, "", `/${location.hash}`);
  const res = await fetch(`/login${search}`, { method: "POST", credentials: "same-origin" });
  if (!res.ok) return (await res.text()).trim() || `login failed (${res.status})`;
  key = ((await res.json()) as { key: string }).key;
  localStorage.setItem(KEY_STORE, key);
  return undefined;
}

/**
 * Is this browser logged in? Without a key it cannot be (no request at all); with one, the page
 * asks `/session-state`, which answers 200 either way, so a logged-out page makes no 401 requests.
 * A key the server no longer knows (it restarted, the session expired) is dropped.
 */
export async function loggedIn(): Promise<boolean> {
  if (!key) return false;
  const res = await fetch("/session-state", { headers: { "x-coffer-key": key }, credentials: "same-origin" });
  const ok = res.ok && ((await res.json()) as { logged_in?: boolean }).logged_in === true;
  if (!ok) forgetKey();
  return ok;
}

/** The key goes (the server's answer to a logout also drops the cookie). */
function forgetKey(): void {
  key = "";
  localStorage.removeItem(KEY_STORE);
}

/**
 * Log out: the server ends the session only when the page's key comes with the cookie (a replayed
 * cookie cannot log anyone out), then the page starts again logged out.
 */
export async function logOut(): Promise<void> {
  await fetch("/logout", { method: "POST", headers: { "x-coffer-key": key }, credentials: "same-origin" }).catch(
    () => undefined,
  );
  forgetKey();
  location.assign("/");
}

export let session: SessionInfo | undefined;

let sessionP: Promise<SessionInfo | undefined> | undefined;

/** The session, once loaded (pages may start their own requests before it arrives). */
export function whenSession(): Promise<SessionInfo | undefined> {
  sessionP ??= loadSession();
  return sessionP;
}

/** Log in state: a 401 means no live session (no cookie, or no key in this browser). */
async function loadSession(): Promise<SessionInfo | undefined> {
  try {
    session = await api<SessionInfo>("GET", "/api/v1/ui/session");
    return session;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return undefined;
    throw err;
  }
}

/** Call the API with the session: the cookie, and the key in a header on every call. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", "x-coffer-key": key };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {}
  if (!res.ok) {
    // The server's error envelope: the code says what failed (not_found, conflict, ...), the message is for people.
    const e = (data as Partial<ErrorBody> | null)?.error;
    throw new ApiError(res.status, e?.code ?? "error", e?.message ?? `${res.status} ${res.statusText}`);
  }
  return data as T;
}

export function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : "";
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

/** Take the toast down (another page: its message and its Undo belong to the page left). */
export function clearToast(): void {
  if (toastTimer) clearTimeout(toastTimer);
  toastTimer = undefined;
  document.getElementById("toast")?.replaceChildren();
}

/** A short status message, optionally with one action button (e.g. Undo). */
export function toast(message: string, action?: { label: string; run: () => void }): void {
  const box = document.getElementById("toast")!;
  const parts: Node[] = [h("span", {}, message)];
  if (action)
    parts.push(
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            box.replaceChildren();
            action.run();
          },
        },
        action.label,
      ),
    );
  box.replaceChildren(...parts);
  if (toastTimer) clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.replaceChildren(), action ? 12000 : 5000);
}

export function errorBox(err: unknown): HTMLElement {
  const msg = err instanceof Error ? err.message : String(err);
  return h("p", { class: "error", role: "alert" }, msg);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  // One unbreakable piece: a date never wraps over three lines in a narrow column.
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }).replace(/\s/g, "\u00a0");
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

let scopesCache: Promise<Projects> | undefined;

export function loadScopes(fresh = false): Promise<Projects> {
  if (fresh || !scopesCache) scopesCache = api<Projects>("GET", "/api/v1/projects");
  return scopesCache;
}

export function scopeLabel(s: Scope): string {
  return s.scope === "global" ? "Global" : `${s.label} (${s.scope.slice(0, 6)})`;
}

/** A labelled <select> of scopes. */
export function scopeSelect(
  id: string,
  label: string,
  scopes: Scope[],
  selected: string,
  opts: { all?: boolean } = {},
): HTMLLabelElement {
  return h(
    "label",
    { for: id },
    label,
    h(
      "select",
      { id, name: id },
      opts.all ? h("option", { value: "all", selected: selected === "all" }, "All scopes") : null,
      scopes.map((s) => h("option", { value: s.scope, selected: s.scope === selected }, scopeLabel(s))),
    ),
  );
}

/** Is `page` the page the address names now? (A page re-rendering itself after a save checks it, so it never paints over the page the user moved to.) */
export function onPage(page: string): boolean {
  return (location.hash.replace(/^#\/?/, "").split(/[?#]/)[0] || "entries") === page;
}

/** The hash route's query parameters (`#/entries?scope=x`). */
export function routeParams(): URLSearchParams {
  const hash = location.hash.replace(/^#/, "");
  const i = hash.indexOf("?");
  return new URLSearchParams(i >= 0 ? hash.slice(i + 1) : "");
}

export function setRouteParams(page: string, params: Record<string, string | number | undefined>, replace = false) {
  const next = `#/${page}${qs(params)}`;
  if (replace) history.replaceState(null, "", next);
  else if (location.hash !== next) location.hash = next;
}
