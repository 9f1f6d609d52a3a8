/**
 * `coffer scan`: find secrets already written under memory/ (entries, rules, handoffs, hand-edited
 * files) and, with `fix`, redact them in place. Files only: symlinks and anything but regular
 * files are skipped, reads are size-bounded, every fix is an atomic write, every fix is audited
 * (path and families, never the content). The index picks the fixed files up on its next refresh.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { writeFileAtomic } from "../lib/atomic";
import { paths } from "../lib/paths";
import { readRegularFile } from "../lib/small-file";
import { type Found, findSecrets, mergedSpans, scrub } from "./index";
import { audit } from "./write";

/** Files larger than this are not entries; they are reported as skipped, not read. */
export const SCAN_MAX_BYTES = 4 * 1024 * 1024;
const SCANNED = /\.(?:md|markdown|txt|toml|json|jsonl|ya?ml)$/i;

export type ScanFinding = { path: string; found: Found[]; fixed: boolean };
export type ScanResult = { files: number; findings: ScanFinding[]; secrets: number; skipped: string[] };

/** Every regular text file under `root`, depth-first, in a stable order; `.git` and symlinks are not followed. */
function* walk(root: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (name === ".git") continue;
    const full = join(root, name);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(full);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) yield* walk(full);
    else if (st.isFile() && SCANNED.test(name) && !(name.startsWith(".") && name.endsWith(".tmp"))) yield full;
  }
}

/**
 * The secrets in `text` by family, each distinct value once: a key in an entry's title and again in
 * its body is one secret, not two (issue 37). Overlapping spans merge as scrub merges them (the
 * lowest rank names the family); echoes of a found value are that value again, so they never add.
 */
export function distinctFound(text: string): Found[] {
  const families = new Map<string, string>();
  for (const g of mergedSpans(findSecrets(text))) {
    const value = text.slice(g.start, g.end).trim();
    if (value && !families.has(value)) families.set(value, g.best.family);
  }
  const counts = new Map<string, number>();
  for (const family of families.values()) counts.set(family, (counts.get(family) ?? 0) + 1);
  return [...counts].map(([family, count]) => ({ family, count }));
}

/** The distinct secrets of a text scrub found some in (scrub's own counts if nothing else is known). */
function counted(text: string, scrubbed: Found[]): { found: Found[]; secrets: number } {
  const d = distinctFound(text);
  const found = d.length ? d : scrubbed;
  return { found, secrets: found.reduce((n, f) => n + f.count, 0) };
}

/** Which of these files (paths relative to `root`) hold a secret, and of what kind: sync's commit check. */
export function filesWithSecrets(root: string, rels: string[]): { path: string; found: Found[] }[] {
  const out: { path: string; found: Found[] }[] = [];
  for (const rel of rels) {
    const buf = readRegularFile(join(root, rel), SCAN_MAX_BYTES);
    if (!buf) continue;
    const r = scrub(buf.toString("utf8"));
    if (r.redactions) out.push({ path: rel, found: r.found });
  }
  return out;
}

/** Texts given by path (a commit's staged files): which hold a secret, and of what kind. */
export function scanTexts(files: { path: string; text: string }[]): ScanResult {
  const result: ScanResult = { files: files.length, findings: [], secrets: 0, skipped: [] };
  for (const f of files) {
    const r = scrub(f.text);
    if (!r.redactions) continue;
    const { found, secrets } = counted(f.text, r.found);
    result.secrets += secrets;
    result.findings.push({ path: f.path, found, fixed: false });
  }
  return result;
}

/** Scan memory/ (or `root`); with `fix`, replace each secret by [redacted] in place. */
export function scanMemory(opts: { fix?: boolean; root?: string; actor?: string } = {}): ScanResult {
  const root = opts.root ?? paths.memory();
  const result: ScanResult = { files: 0, findings: [], secrets: 0, skipped: [] };
  for (const file of walk(root)) {
    const rel = relative(root, file).split(sep).join("/");
    const buf = readRegularFile(file, SCAN_MAX_BYTES);
    if (!buf) {
      result.skipped.push(rel);
      continue;
    }
    result.files++;
    const text = buf.toString("utf8");
    const r = scrub(text);
    if (!r.redactions) continue;
    const { found, secrets } = counted(text, r.found);
    result.secrets += secrets;
    let fixed = false;
    if (opts.fix) {
      writeFileAtomic(file, r.text);
      fixed = true;
      audit({
        event: "scan.fix",
        actor: opts.actor ?? "user",
        path: rel,
        redactions: r.redactions,
        families: r.found.map((f) => f.family),
      });
    }
    result.findings.push({ path: rel, found, fixed });
  }
  return result;
}
