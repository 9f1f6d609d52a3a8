/** Host name -> its link facts (`src/hosts/<host>/link.ts`), loaded only when needed. */
import { CofferError } from "../lib/errors";
import { HOSTS, type Host } from "../store/config";
import type { HostLink } from "./types";

const LOADERS: Record<Host, () => Promise<HostLink>> = {
  claude: () => import("../hosts/claude/link").then((m) => m.claudeLink),
  codex: () => import("../hosts/codex/link").then((m) => m.codexLink),
  gemini: () => import("../hosts/gemini/link").then((m) => m.geminiLink),
  cursor: () => import("../hosts/cursor/link").then((m) => m.cursorLink),
  windsurf: () => import("../hosts/windsurf/link").then((m) => m.windsurfLink),
  opencode: () => import("../hosts/opencode/link").then((m) => m.opencodeLink),
};

export function isHost(name: string): name is Host {
  return (HOSTS as readonly string[]).includes(name);
}

export async function loadHostLink(name: string | undefined): Promise<HostLink> {
  if (!name)
    throw new CofferError("which agent? name one host", 2, `Hosts: ${HOSTS.join(", ")}. Example: coffer link claude`);
  const host = name.toLowerCase();
  if (!isHost(host)) throw new CofferError(`unknown host "${name}"`, 2, `Hosts: ${HOSTS.join(", ")}.`);
  return LOADERS[host]();
}

export async function allHostLinks(): Promise<HostLink[]> {
  return Promise.all(HOSTS.map((h) => LOADERS[h]()));
}
