/** In-process checks of what the binary tests cannot see cheaply: cache pruning, the hook's import graph. */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { KEEP_PARENTS, KEEP_SUBAGENTS, readSession, sessionCounts, sessionKey, updateSession } from "../../src/store";
import { closeStore, openStore } from "../../src/store/store";

const dir = mkdtempSync(join(tmpdir(), "coffer-hook-internals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("delivered-set cache", () => {
  test("keeps at most 200 parent and 100 subagent records and drops records older than 7 days", () => {
    process.env.COFFER_HOME = join(dir, "coffer");
    const store = openStore({ cwd: dir, freshness: "none" });
    const now = Date.now();
    const old = sessionKey("claude", "/w", "ancient");
    updateSession(store, old, { delivered: [{ id: "E1", hash: "h" }] }, now - 8 * 86_400_000);
    for (let i = 0; i < 250; i++)
      updateSession(
        store,
        sessionKey("claude", "/w", `p${i}`),
        { delivered: [{ id: "E1", hash: "h" }] },
        now - 250 + i,
      );
    for (let i = 0; i < 120; i++)
      updateSession(
        store,
        sessionKey("claude", "/w", "p249", `a${i}`),
        { delivered: [{ id: "E2", hash: "h" }] },
        now - 120 + i,
      );
    // Pruning runs when a new session arrives over the limit: at most one over at any time.
    expect(sessionCounts(store).parents).toBeLessThanOrEqual(KEEP_PARENTS + 1);
    expect(sessionCounts(store).subagents).toBeLessThanOrEqual(KEEP_SUBAGENTS + 1);
    expect(readSession(store, old)).toBeUndefined();
    // The newest survive, with their delivered rows; orphans are gone.
    expect(readSession(store, sessionKey("claude", "/w", "p249"))?.delivered.get("E1")).toBe("h");
    expect(readSession(store, sessionKey("claude", "/w", "p0"))).toBeUndefined();
    expect(sessionCounts(store).orphans).toBe(0);
    // A prune leaves room: the next sessions are added without pruning until the limit is passed again.
    const before = sessionCounts(store).parents;
    expect(before).toBeLessThan(KEEP_PARENTS - 5);
    for (let i = 0; i < 5; i++) updateSession(store, sessionKey("claude", "/w", `q${i}`), {}, now + i);
    expect(sessionCounts(store).parents).toBe(before + 5);
    closeStore(store);
  });

  test("keys never contain prompt text: host, cwd, session (and agent) only", () => {
    const k = sessionKey("codex", "/repo", "s1", "agent9");
    expect(k.session).toBe("s1#agent:agent9");
    expect(k.subagent).toBe(true);
    expect(k.skey).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the hook path's imports", () => {
  const FORBIDDEN = [
    /^citty$/,
    /^consola/,
    /^@modelcontextprotocol\//,
    /child_process/,
    /^node:crypto$/,
    /\/commands\//,
    /\/serve\//,
    /\/mcp\//,
    /\/distill\//,
    /\/sync\//,
    /\/link\//,
  ];
  const src = resolve(import.meta.dir, "..", "..", "src");

  function importsOf(file: string, dynamicToo: boolean): string[] {
    const text = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const out = [...text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!);
    out.push(...[...text.matchAll(/^import\s+"([^"]+)"/gm)].map((m) => m[1]!));
    if (dynamicToo) out.push(...[...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]!));
    return out;
  }

  test("entry.ts and everything it loads for an event: no CLI framework, MCP, network, processes or node:crypto", () => {
    const entry = join(src, "hooks", "entry.ts");
    const seen = new Set<string>();
    const bad: string[] = [];
    const walk = (file: string, dynamicToo: boolean) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file, dynamicToo)) {
        // `coffer hook --help` renders help through the CLI framework: not the hook path.
        if (file === entry && spec.startsWith("../commands/")) continue;
        // The host registry also holds each host's link loader, which only link/unlink/doctor call.
        if (file.endsWith("/hosts/index.ts") && spec.endsWith("/link")) continue;
        if (FORBIDDEN.some((re) => re.test(spec))) bad.push(`${file.slice(src.length)} imports ${spec}`);
        if (spec.startsWith(".")) {
          const target = resolve(dirname(file), spec);
          if (/\.(json|bin|txt|so|dylib|dll)$/.test(target)) continue; // data (or native code read as a file), not modules
          // A folder import ("../scrub") loads its index.ts.
          walk(
            target.endsWith(".ts") ? target : existsSync(`${target}.ts`) ? `${target}.ts` : `${target}/index.ts`,
            true,
          );
        }
      }
    };
    walk(entry, true);
    expect(bad).toEqual([]);
    expect([...seen].some((f) => f.endsWith("store/store.ts"))).toBe(true);
    expect([...seen].some((f) => f.endsWith("hosts/claude/hook.ts"))).toBe(true);
  });
});
