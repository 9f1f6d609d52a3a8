/**
 * Peak memory of `coffer link claude` / `coffer unlink claude` on a large `~/.claude.json`
 * (Claude Code keeps every project's history there; 40+ MB files exist in the wild).
 * Usage: bun scripts/bench/link-memory.ts [megabytes=44]
 * Prints the file size and the peak RSS of each run (from /usr/bin/time -v, else /proc).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const BIN = resolve(process.env.COFFER_BIN ?? join(import.meta.dir, "..", "..", "dist", "coffer"));
const mb = Number(process.argv[2] ?? 44);

/** A ~/.claude.json shaped like Claude Code's: many projects, each with a long prompt history. */
export function bigClaudeJson(bytes: number): string {
  const projects: Record<string, unknown> = {};
  let size = 0;
  for (let p = 0; size < bytes; p++) {
    const history = Array.from({ length: 40 }, (_, i) => ({
      display: `prompt ${i} in project ${p}: ${"lorem ipsum dolor sit amet ".repeat(8)}`,
      pastedContents: {},
    }));
    const project = { allowedTools: [], history, mcpServers: {}, hasTrustDialogAccepted: true, lastCost: 0.12 };
    projects[`/home/me/src/project-${p}`] = project;
    size += JSON.stringify(project).length * 1.15;
  }
  return `${JSON.stringify({ numStartups: 12, theme: "dark", projects, userID: "x".repeat(64) }, null, 2)}\n`;
}

function peakRss(args: string[], env: Record<string, string>): { kb: number; code: number; ms: number } {
  const t0 = performance.now();
  const out = join(env.HOME!, "..", "time.txt");
  const p = Bun.spawnSync(["/usr/bin/time", "-v", "-o", out, BIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t0;
  if (p.exitCode !== 0) console.error(p.stderr.toString());
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(out, "utf8"));
  return { kb: m ? Number(m[1]) : -1, code: p.exitCode ?? -1, ms };
}

if (import.meta.main) {
  const root = mkdtempSync(join(tmpdir(), "coffer-bench-link-"));
  try {
    const home = join(root, "home");
    mkdirSync(home, { recursive: true });
    const file = join(home, ".claude.json");
    writeFileSync(file, bigClaudeJson(mb * 1024 * 1024));
    const size = statSync(file).size;
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, COFFER_HOME: join(root, "coffer") };
    const base = peakRss(["--version"], env);
    const link = peakRss(["link", "claude"], env);
    const unlink = peakRss(["unlink", "claude"], env);
    const f = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
    console.log(`~/.claude.json: ${(size / 1024 / 1024).toFixed(1)} MB`);
    console.log(`coffer --version: ${f(base.kb)} peak RSS`);
    console.log(`link claude:   exit ${link.code}, ${f(link.kb)} peak RSS, ${link.ms.toFixed(0)} ms`);
    console.log(`unlink claude: exit ${unlink.code}, ${f(unlink.kb)} peak RSS, ${unlink.ms.toFixed(0)} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
