/**
 * The host registry: per host, its hook adapter and its link facts, each loaded only when asked
 * for (`coffer hook` loads the one host's adapter, `coffer link` the one host's facts). Adding a
 * host: its name in `src/lib/hosts.ts`, its folder here, one line below.
 */
import { didYouMean } from "../lib/did-you-mean";
import { CofferError } from "../lib/errors";
import { HOSTS, type Host, isHost } from "../lib/hosts";
import type { HostAdapter } from "./hook";
import type { HostLink } from "./link";

/** A host's two modules, each imported on first use (literal paths, so the compiled binary bundles them). */
type HostModules = { hook: () => Promise<{ adapter: HostAdapter }>; link: () => Promise<{ link: HostLink }> };

const REGISTRY: Record<Host, HostModules> = {
  claude: { hook: () => import("./claude/hook"), link: () => import("./claude/link") },
  codex: { hook: () => import("./codex/hook"), link: () => import("./codex/link") },
  gemini: { hook: () => import("./gemini/hook"), link: () => import("./gemini/link") },
  cursor: { hook: () => import("./cursor/hook"), link: () => import("./cursor/link") },
  windsurf: { hook: () => import("./windsurf/hook"), link: () => import("./windsurf/link") },
  opencode: { hook: () => import("./opencode/hook"), link: () => import("./opencode/link") },
  copilot: { hook: () => import("./copilot/hook"), link: () => import("./copilot/link") },
  cline: { hook: () => import("./cline/hook"), link: () => import("./cline/link") },
  kimi: { hook: () => import("./kimi/hook"), link: () => import("./kimi/link") },
  goose: { hook: () => import("./goose/hook"), link: () => import("./goose/link") },
  qwen: { hook: () => import("./qwen/hook"), link: () => import("./qwen/link") },
  kilo: { hook: () => import("./kilo/hook"), link: () => import("./kilo/link") },
  pi: { hook: () => import("./pi/hook"), link: () => import("./pi/link") },
  antigravity: { hook: () => import("./antigravity/hook"), link: () => import("./antigravity/link") },
};

/** One host's hook adapter (stdin schema, output shapes, payload cap). */
export function loadHookAdapter(host: Host): Promise<HostAdapter> {
  return REGISTRY[host].hook().then((m) => m.adapter);
}

/** The link facts of the host a user named on the command line (case-insensitive). */
export async function loadHostLink(name: string | undefined): Promise<HostLink> {
  if (!name)
    throw new CofferError("which agent? name one host", 2, `Hosts: ${HOSTS.join(", ")}. Example: coffer link claude`);
  const host = name.toLowerCase();
  if (!isHost(host)) {
    const guess = didYouMean(host, HOSTS);
    throw new CofferError(
      `unknown host "${name}"`,
      2,
      guess ? `Did you mean \`${guess}\`? Hosts: ${HOSTS.join(", ")}.` : `Hosts: ${HOSTS.join(", ")}.`,
    );
  }
  return REGISTRY[host].link().then((m) => m.link);
}

export function allHostLinks(): Promise<HostLink[]> {
  return Promise.all(HOSTS.map((h) => REGISTRY[h].link().then((m) => m.link)));
}
