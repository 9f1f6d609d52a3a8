/**
 * The host registry: per host, its hook adapter and its link facts, each loaded only when asked
 * for (`coffer hook` loads the one host's adapter, `coffer link` the one host's facts). Adding a
 * host: its name in `src/lib/hosts.ts`, its folder here, one line below.
 */
import { CofferError } from "../lib/errors";
import { HOSTS, type Host, isHost } from "../lib/hosts";
import type { HostAdapter } from "./hook";
import type { HostLink } from "./link";

type HostModules = { hook: () => Promise<HostAdapter>; link: () => Promise<HostLink> };

const REGISTRY: Record<Host, HostModules> = {
  claude: {
    hook: () => import("./claude/hook").then((m) => m.adapter),
    link: () => import("./claude/link").then((m) => m.link),
  },
  codex: {
    hook: () => import("./codex/hook").then((m) => m.adapter),
    link: () => import("./codex/link").then((m) => m.link),
  },
  gemini: {
    hook: () => import("./gemini/hook").then((m) => m.adapter),
    link: () => import("./gemini/link").then((m) => m.link),
  },
  cursor: {
    hook: () => import("./cursor/hook").then((m) => m.adapter),
    link: () => import("./cursor/link").then((m) => m.link),
  },
  windsurf: {
    hook: () => import("./windsurf/hook").then((m) => m.adapter),
    link: () => import("./windsurf/link").then((m) => m.link),
  },
  opencode: {
    hook: () => import("./opencode/hook").then((m) => m.adapter),
    link: () => import("./opencode/link").then((m) => m.link),
  },
};

/** One host's hook adapter (stdin schema, output shapes, payload cap). */
export function loadHookAdapter(host: Host): Promise<HostAdapter> {
  return REGISTRY[host].hook();
}

/** The link facts of the host a user named on the command line (case-insensitive). */
export async function loadHostLink(name: string | undefined): Promise<HostLink> {
  if (!name)
    throw new CofferError("which agent? name one host", 2, `Hosts: ${HOSTS.join(", ")}. Example: coffer link claude`);
  const host = name.toLowerCase();
  if (!isHost(host)) throw new CofferError(`unknown host "${name}"`, 2, `Hosts: ${HOSTS.join(", ")}.`);
  return REGISTRY[host].link();
}

export function allHostLinks(): Promise<HostLink[]> {
  return Promise.all(HOSTS.map((h) => REGISTRY[h].link()));
}
