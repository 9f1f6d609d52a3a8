/** The rules lane: one rules.md per scope, a bullet list every session starts with. */
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { audit, scrubFields } from "../scrub/write";
import { assertMemoryWritePath, readMemoryText, scopeDir } from "./indexer";
import { GLOBAL, isTeamKey, knownTeams, resolveProject, type ScopeKey, type TeamScope } from "./scope";
import { ensureProjectFile, type Store, scopeName } from "./store";
import { withoutMachinePaths, writeTeamFile } from "./team";

export function rulesPath(scope: ScopeKey): string {
  return join(scopeDir(scope), "rules.md");
}

/** The rules lanes a session in this cwd starts with, in delivery order: project, team (when present), global. */
export function ruleScopes(store: Store): ScopeKey[] {
  return [...(store.project ? [store.project.id] : []), ...(store.team?.present ? [store.team.key] : []), GLOBAL];
}

/** A scope's rules.md; "" when missing, a link, not a regular file, or over 1 MiB (never followed, never read). */
export function readRules(scope: ScopeKey): string {
  return readMemoryText(rulesPath(scope)) ?? "";
}

/**
 * A scope's rules as they go out: session start and subagents, `coffer rules show`, the HTTP API
 * and the web UI. Scrubbed like an entry's text in the index: a hand-edited rules.md, or a team's
 * committed one, never passed the scrubber on the way in (issue 36 item 9).
 */
export function shownRules(scope: ScopeKey): string {
  return scrubRules(readRules(scope));
}

/** A rules text scrubbed, whatever `--allow-secret` let into the file (the hook caches it per content). */
export function scrubRules(text: string): string {
  return text.trim() ? scrubFields({ text }).fields.text : text;
}

/**
 * The repositories whose `.coffer/rules.md` adds rules to the sessions started in them (every team
 * lane this machine has read, and the cwd's): what `coffer doctor` shows, since those rules reach
 * the agent like a CLAUDE.md would.
 */
export function teamRuleSources(): { repository: string; file: string; rules: number }[] {
  const out: { repository: string; file: string; rules: number }[] = [];
  for (const [key, worktree] of knownTeams()) {
    const rules = readRules(key)
      .split("\n")
      .filter((l) => /^\s*[-*] \S/.test(l)).length;
    if (rules) out.push({ repository: resolveProject(worktree)?.label ?? worktree, file: rulesPath(key), rules });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** Append one bullet to a scope's rules.md (a rule already present is not added twice). */
export function addRule(
  store: Store,
  scope: ScopeKey,
  text: string,
  actor: string,
  opts: { allowSecret?: boolean } = {},
): { added: boolean; file: string; scrubbed?: string } {
  if (opts.allowSecret && isTeamKey(scope)) throw teamSecretError();
  const clean = scrubFields({ text }, opts.allowSecret);
  const note = clean.note ? { scrubbed: clean.note } : {};
  const rule = (teamOf(store, scope) ? withoutMachinePaths(clean.fields.text, store.team!) : clean.fields.text)
    .trim()
    .replace(/^[-*]\s+/, "")
    .replace(/\s*\n\s*/g, " ");
  if (!rule) throw new CofferError("rule text is empty", 1, 'e.g. coffer rules add "Run bun test before committing"');
  if (rule.length > 1000) throw new CofferError(`rule is ${rule.length} characters; the limit is 1000`);
  const file = rulesPath(scope);
  const team = teamOf(store, scope);
  if (!team && scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const current = readRules(scope);
  const norm = (s: string) =>
    s
      .replace(/^\s*[-*]\s+/, "")
      .trim()
      .toLowerCase();
  if (current.split("\n").some((l) => norm(l) === rule.toLowerCase())) return { added: false, file, ...note };
  const next = `${current && !current.endsWith("\n") ? `${current}\n` : current}- ${rule}\n`;
  writeRulesFile(file, next, team);
  audit({ event: "rule_added", scope: scopeName(store, scope), actor });
  return { added: true, file, ...note };
}

const RULES_MAX = 65536;

const teamSecretError = () =>
  new CofferError(
    "--allow-secret does not apply to the team lane: its files are committed and shared",
    1,
    "Leave the secret out, or add the rule to your own project scope.",
  );

/** The cwd's team lane when `scope` is it (a write there); a team key of another worktree is refused. */
function teamOf(store: Store, scope: ScopeKey): TeamScope | undefined {
  if (!isTeamKey(scope)) return undefined;
  if (store.team?.key !== scope)
    throw new CofferError("not writing another worktree's team rules", 1, "Run it inside that worktree.");
  return store.team;
}

/** Write a rules.md: Coffer's own (0600), or a repository file in a team lane (0644). */
function writeRulesFile(file: string, text: string, team: TeamScope | undefined): void {
  assertMemoryWritePath(file);
  if (team) writeTeamFile(team, file, text);
  else writeFileAtomic(file, text);
}

/** Replace a scope's whole rules.md (HTTP `PUT /api/v1/rules`); an empty text empties the lane. */
export function writeRules(
  store: Store,
  scope: ScopeKey,
  raw: string,
  actor: string,
  opts: { allowSecret?: boolean } = {},
): { changed: boolean; file: string; scrubbed?: string } {
  if (opts.allowSecret && isTeamKey(scope)) throw teamSecretError();
  const clean = scrubFields({ text: raw }, opts.allowSecret);
  const team = teamOf(store, scope);
  const text = team ? withoutMachinePaths(clean.fields.text, team) : clean.fields.text;
  const note = clean.note ? { scrubbed: clean.note } : {};
  if (text.length > RULES_MAX)
    throw new CofferError(`rules text is ${text.length} characters; the limit is ${RULES_MAX}`);
  if (!team && scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const file = rulesPath(scope);
  const next = text.trim() ? `${text.replace(/\s+$/, "")}\n` : "";
  if (readRules(scope) === next) return { changed: false, file, ...note };
  writeRulesFile(file, next, team);
  audit({ event: "rules_replaced", scope: scopeName(store, scope), actor });
  return { changed: true, file, ...note };
}
