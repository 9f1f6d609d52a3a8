/** The rules lane: one rules.md per scope, a bullet list every session starts with. */
import { join } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { CofferError } from "../lib/errors";
import { audit, scrubFields } from "../scrub/write";
import { assertMemoryWritePath, readMemoryText, scopeDir } from "./indexer";
import { GLOBAL, type ScopeKey } from "./scope";
import { ensureProjectFile, type Store, scopeName } from "./store";

export function rulesPath(scope: ScopeKey): string {
  return join(scopeDir(scope), "rules.md");
}

/** A scope's rules.md; "" when missing, a link, not a regular file, or over 1 MiB (never followed, never read). */
export function readRules(scope: ScopeKey): string {
  return readMemoryText(rulesPath(scope)) ?? "";
}

/** Append one bullet to a scope's rules.md (a rule already present is not added twice). */
export function addRule(
  store: Store,
  scope: ScopeKey,
  text: string,
  actor: string,
  opts: { allowSecret?: boolean } = {},
): { added: boolean; file: string; scrubbed?: string } {
  const clean = scrubFields({ text }, opts.allowSecret);
  const note = clean.note ? { scrubbed: clean.note } : {};
  const rule = clean.fields.text
    .trim()
    .replace(/^[-*]\s+/, "")
    .replace(/\s*\n\s*/g, " ");
  if (!rule) throw new CofferError("rule text is empty", 1, 'e.g. coffer rules add "Run bun test before committing"');
  if (rule.length > 1000) throw new CofferError(`rule is ${rule.length} characters; the limit is 1000`);
  if (scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const file = rulesPath(scope);
  const current = readRules(scope);
  const norm = (s: string) =>
    s
      .replace(/^\s*[-*]\s+/, "")
      .trim()
      .toLowerCase();
  if (current.split("\n").some((l) => norm(l) === rule.toLowerCase())) return { added: false, file, ...note };
  const next = `${current && !current.endsWith("\n") ? `${current}\n` : current}- ${rule}\n`;
  assertMemoryWritePath(file);
  writeFileAtomic(file, next);
  audit({ event: "rule_added", scope: scopeName(store, scope), actor });
  return { added: true, file, ...note };
}

const RULES_MAX = 65536;

/** Replace a scope's whole rules.md (HTTP `PUT /api/v1/rules`); an empty text empties the lane. */
export function writeRules(
  store: Store,
  scope: ScopeKey,
  raw: string,
  actor: string,
  opts: { allowSecret?: boolean } = {},
): { changed: boolean; file: string; scrubbed?: string } {
  const clean = scrubFields({ text: raw }, opts.allowSecret);
  const text = clean.fields.text;
  const note = clean.note ? { scrubbed: clean.note } : {};
  if (text.length > RULES_MAX)
    throw new CofferError(`rules text is ${text.length} characters; the limit is ${RULES_MAX}`);
  if (scope !== GLOBAL && store.project) ensureProjectFile(store.project);
  const file = rulesPath(scope);
  const next = text.trim() ? `${text.replace(/\s+$/, "")}\n` : "";
  if (readRules(scope) === next) return { changed: false, file, ...note };
  assertMemoryWritePath(file);
  writeFileAtomic(file, next);
  audit({ event: "rules_replaced", scope: scopeName(store, scope), actor });
  return { changed: true, file, ...note };
}
