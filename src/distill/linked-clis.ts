/**
 * Which agents' CLIs distillation may use without configuration, and where they are. `coffer link`
 * records each linked agent that has a headless CLI, in link order, with the path the CLI was
 * found at then (from the user's own shell: a background `coffer serve` may run with a shorter
 * PATH); `coffer unlink` forgets it. The record itself, `state/agent-clis.json`: src/hosts/agent-clis.ts.
 *
 * A store linked before this record existed has no file: then the agents whose user config holds
 * Coffer's hooks count as linked, in the table's order.
 */
import { readFileSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  isExecutable,
  isInside,
  type LinkedCli,
  readLinkedRecords,
  whichOnPath,
  writeLinkedRecords,
} from "../hosts/agent-clis";
import { link as claudeLink } from "../hosts/claude/link";
import { cliOfHost } from "../hosts/clis";
import { link as codexLink } from "../hosts/codex/link";
import { link as geminiLink } from "../hosts/gemini/link";
import type { HeadlessCli } from "../hosts/headless";
import type { HostLink } from "../hosts/link";
import { HOSTS, type Host } from "../lib/hosts";
import { homeDir } from "../lib/paths";
import { isoNow } from "../lib/time";
import { findRepoRoot } from "../store";

/** The repository this process stands in (its checkout: files other people committed), if any. */
export function currentRepository(cwd = process.cwd()): string | undefined {
  return findRepoRoot(cwd)?.worktree;
}

/**
 * The CLI's executable: the recorded path while it is still there, else PATH, else the usual
 * places; never a relative path nor one inside the repository at hand (its `node_modules/.bin`
 * is other people's code: issue 36).
 */
export function findCli(cli: HeadlessCli, recorded?: string | null): string | undefined {
  const repo = currentRepository();
  const allowed = (p: string) => isAbsolute(p) && !(repo && isInside(p, repo)) && isExecutable(p);
  if (recorded && allowed(recorded)) return recorded;
  const onPath = whichOnPath(cli.bin, process.env.PATH, repo);
  if (onPath) return onPath;
  return cli.places(homeDir()).find(allowed);
}

/** Where `findCli` looks, for a "not found" message. */
export function searched(cli: HeadlessCli): string {
  const home = homeDir();
  const places = cli.places(home).map((p) => (p.startsWith(home) ? `~${p.slice(home.length)}` : p));
  return `PATH, ${places.join(", ")}`;
}

const USER_LINKS: Partial<Record<Host, HostLink>> = { claude: claudeLink, codex: codexLink, gemini: geminiLink };

/**
 * When the user's config of a host last changed, if it holds Coffer's hooks (for stores linked
 * before the record): the best date there is of when it was linked.
 */
function hooksInUserConfig(host: Host): string | undefined {
  const h = USER_LINKS[host];
  if (h?.hooks.kind !== "json") return undefined;
  try {
    const file = h.hooks.file({ home: homeDir() }).path;
    const text = readFileSync(file, "utf8");
    if (!text.includes(`--agent ${host}`) || !/\bhook\b/.test(text)) return undefined;
    return isoNow(statSync(file).mtime);
  } catch {
    return undefined;
  }
}

/** The linked agents that have a headless CLI, first linked first. */
export function linkedClis(): LinkedCli[] {
  const records = readLinkedRecords();
  if (records) return records.filter((r) => cliOfHost(r.host));
  return HOSTS.flatMap((host) => {
    const at = cliOfHost(host) ? hooksInUserConfig(host) : undefined;
    return at ? [{ host, path: null, linked_at: at }] : [];
  });
}

/**
 * `coffer link <host>`: remember the host (kept in its first place when linked again) and where its
 * CLI is now (`findCli`: an absolute path outside the repository `link` runs in, or none). Returns
 * the CLI's facts and path, or undefined for a host without a headless CLI.
 */
export function recordLinkedCli(host: Host): { cli: HeadlessCli; path?: string } | undefined {
  const cli = cliOfHost(host);
  if (!cli) return undefined;
  const stored = readLinkedRecords();
  const records = stored ?? linkedClis();
  const at = records.find((r) => r.host === host);
  const path = findCli(cli, at?.path) ?? null;
  if (at) {
    at.path = path;
    // no file yet: the record comes from the hooks this link has just written, so this link is its date
    if (!stored || !at.linked_at) at.linked_at = isoNow();
  } else records.push({ host, path, linked_at: isoNow() });
  writeLinkedRecords(records);
  return { cli, ...(path ? { path } : {}) };
}

/** `coffer unlink <host>`: the host's CLI is no longer used without configuration. */
export function forgetLinkedCli(host: Host): void {
  const records = readLinkedRecords();
  if (!records?.some((r) => r.host === host)) return;
  writeLinkedRecords(records.filter((r) => r.host !== host));
}
