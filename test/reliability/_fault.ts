/**
 * Shared pieces of the fault-injection suite (test/reliability/fault-*.test.ts): a seeded PRNG
 * (COFFER_FAULT_SEED replays a run), hook runs with their wall time, the host answer check, the
 * store consistency check (every entry file parses, the index holds exactly memory/, no lock left),
 * and a counter every file adds to so the suite can print what it did.
 */
import { Database } from "bun:sqlite";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, type Sandbox } from "../kit";

export const SEED = Number(process.env.COFFER_FAULT_SEED ?? 20261130);

/** A seed of its own for each test (`seedFor("crash")`), for the kit's rng. */
export function seedFor(name: string): number {
  let h = SEED;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return h >>> 0;
}

export const HOSTS = ["claude", "codex", "gemini", "cursor", "windsurf", "opencode"] as const;

/** Exactly one host answer: `{}`, `{hookSpecificOutput: {hookEventName, additionalContext}}` or `{additional_context}`. */
export function validAnswer(host: string, stdout: string): boolean {
  let j: unknown;
  try {
    j = JSON.parse(stdout);
  } catch {
    return false; // also catches two answers written one after the other
  }
  if (!j || typeof j !== "object" || Array.isArray(j)) return false;
  const keys = Object.keys(j);
  if (keys.length === 0) return true;
  const o = j as Record<string, any>;
  if (keys.length === 1 && keys[0] === "hookSpecificOutput")
    return (
      ["claude", "codex", "gemini"].includes(host) &&
      typeof o.hookSpecificOutput?.hookEventName === "string" &&
      typeof o.hookSpecificOutput?.additionalContext === "string" &&
      Object.keys(o.hookSpecificOutput).length === 2
    );
  if (keys.length === 1 && keys[0] === "additional_context")
    return ["cursor", "opencode"].includes(host) && typeof o.additional_context === "string";
  return false;
}

export type HookRun = { code: number | null; stdout: string; stderr: string; ms: number };

/** One `coffer hook <event> --agent <host>` with stdin, timed from spawn to exit. */
export async function runHook(
  sb: Sandbox,
  host: string,
  event: string,
  stdin: string | Uint8Array,
  cwd: string,
  env: Record<string, string> = {},
): Promise<HookRun> {
  const t0 = performance.now();
  const p = Bun.spawn([BIN, "hook", event, "--agent", host], {
    cwd,
    env: { ...sb.env, ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    p.stdin.write(stdin);
    await p.stdin.end();
  } catch {} // the hook may stop reading early (oversized stdin)
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr, ms: performance.now() - t0 };
}

export function percentile(xs: number[], p: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Entry files under memory/ by scope: name -> text. */
export function entryFilesOnDisk(cofferHome: string): Map<string, string> {
  const out = new Map<string, string>();
  const mem = join(cofferHome, "memory");
  const scopes: [string, string][] = [["global", join(mem, "global", "entries")]];
  try {
    for (const id of readdirSync(join(mem, "projects"))) scopes.push([id, join(mem, "projects", id, "entries")]);
  } catch {}
  for (const [scope, dir] of scopes) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {}
    for (const n of names)
      if (n.endsWith(".md") && !n.startsWith("."))
        out.set(`${scope}/${n.slice(0, -3)}`, readFileSync(join(dir, n), "utf8"));
  }
  return out;
}

/**
 * After a crash: one ordinary command later (`coffer status`, which opens and refreshes the
 * store), every entry file parses as an entry, the index holds exactly the files on disk, and no
 * lock file of a dead process is left. Returns problems (empty when consistent).
 */
export function checkConsistent(sb: Sandbox, cwd: string): string[] {
  const problems: string[] = [];
  const st = sb.run(["status"], { cwd });
  if (st.code !== 0) problems.push(`status exited ${st.code}: ${st.stderr.slice(0, 300)}`);
  sb.run(["list", "--json", "--limit", "1"], { cwd }); // a deep refresh of the active scopes
  sb.run(["list", "--json", "--limit", "1", "--scope", "global"], { cwd });
  const files = entryFilesOnDisk(sb.cofferHome);
  for (const [key, text] of files)
    if (!/^---\n[\s\S]*?\n---\n/.test(text) || !/\nid: /.test(text))
      problems.push(`partial or invalid entry file ${key}`);
  const dbFile = join(sb.cofferHome, "state", "index.db");
  if (existsSync(dbFile)) {
    const db = new Database(dbFile, { readonly: true });
    try {
      const rows = db.query("SELECT scope, id FROM entries").all() as { scope: string; id: string }[];
      const inDb = new Set(rows.map((r) => `${r.scope}/${r.id}`));
      for (const k of files.keys()) if (!inDb.has(k)) problems.push(`on disk but not indexed: ${k}`);
      for (const k of inDb) if (!files.has(k)) problems.push(`indexed but not on disk: ${k}`);
    } finally {
      db.close();
    }
  }
  for (const lock of [
    join(sb.cofferHome, "state", "sync.lock"),
    join(sb.cofferHome, "queue", "session-queue.json.lock"),
  ])
    if (existsSync(lock)) problems.push(`lock left behind: ${lock}`);
  return problems;
}

/** Counts the suite reports (one JSON line per figure, in the OS temp dir; printed by each file too). */
export const SUMMARY = join(tmpdir(), "coffer-fault-summary.jsonl");

export function record(figure: string, value: number | string): void {
  const line = JSON.stringify({ figure, value, seed: SEED, at: new Date().toISOString() });
  console.log(`[fault-suite] ${figure}: ${value}`);
  try {
    appendFileSync(SUMMARY, `${line}\n`);
  } catch {}
}
