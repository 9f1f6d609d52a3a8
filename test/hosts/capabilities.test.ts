/**
 * Each host declares what it gets from Coffer in its own folder (`gets` in src/hosts/<host>/link.ts,
 * beside its hooks, MCP and session-end facts). This holds every declaration to the code that
 * delivers it (the hook adapter's events, the MCP entry, the summarisers, the native harvest) and
 * to the README's host table (whose capture column must name a host the transcript readers know), so neither can drift from what Coffer does.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadHookAdapter, loadHostLink } from "../../src/hosts/index";
import { NATIVE_HOSTS } from "../../src/import/native-sources";
import { CLI_PROVIDER_HOST, CLI_PROVIDERS, HOSTS } from "../../src/lib/hosts";
import { isTranscriptHost } from "../../src/transcripts/types";

const README = readFileSync(resolve(import.meta.dir, "..", "..", "README.md"), "utf8");

/** The README's "What each agent gets" row of a host, as cells (host cell first). */
function readmeRow(host: string): string[] {
  const table = README.slice(README.indexOf("What each agent gets"));
  const line = table.split("\n").find((l) => l.startsWith(`| \`${host}\``));
  if (!line) throw new Error(`no README row for ${host}`);
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

const yes = (cell: string) => cell.startsWith("✓");

describe("what each host gets", () => {
  for (const host of HOSTS) {
    test(`${host}: the declaration matches the hook adapter, the readers, the summarisers and the harvest`, async () => {
      const link = await loadHostLink(host);
      const adapter = await loadHookAdapter(host);
      const gets = link.gets;
      expect(gets.bundle === "hook").toBe(adapter.injects.includes("session-start"));
      // The MCP server's instructions carry the bundle only where Coffer's entry asks for them.
      const mcpArgs = JSON.stringify(link.mcp.value("/bin/coffer"));
      expect(gets.bundle === "mcp").toBe(mcpArgs.includes("--rules"));
      expect(gets.promptDelta).toBe(adapter.injects.includes("prompt"));
      expect(gets.pathTriggers.length > 0).toBe(adapter.injects.includes("tool"));
      // A subagent event may be parsed without reaching the subagent (Qwen's): declared only when
      // it does, or when the subagent's tool events carry its bundle instead (`subagentsVia`).
      if (gets.subagents) expect(adapter.injects).toContain(adapter.subagentsVia ?? "subagent-start");
      if (adapter.subagentsVia) expect(gets.subagents).toBe(true);
      const providers = CLI_PROVIDERS.filter((p) => CLI_PROVIDER_HOST[p] === host);
      expect(providers).toEqual(gets.summariser ? [gets.summariser] : []);
      expect((NATIVE_HOSTS as readonly string[]).includes(host)).toBe(gets.harvest);
    });

    test(`${host}: the README's row says the same`, async () => {
      const link = await loadHostLink(host);
      const gets = link.gets;
      const [, bundle, prompt, paths, subagents, mcp, capture, summariser, native] = readmeRow(host);
      expect(yes(bundle!)).toBe(gets.bundle !== "none");
      expect(yes(prompt!)).toBe(gets.promptDelta);
      expect(yes(paths!)).toBe(gets.pathTriggers.length > 0);
      for (const tool of gets.pathTriggers) expect(paths).toContain(tool);
      expect(yes(subagents!)).toBe(gets.subagents);
      const home = join("/nonexistent", "home");
      expect(yes(mcp!)).toBe(link.mcp.file({ home } as Parameters<typeof link.mcp.file>[0]) !== undefined);
      expect(yes(capture!)).toBe(isTranscriptHost(host));
      if (link.sessionEnd === "hook") expect(capture).toContain("SessionEnd hook");
      expect(summariser!.startsWith(`\`${gets.summariser}\``)).toBe(gets.summariser !== undefined);
      expect(yes(native!)).toBe(gets.harvest);
    });
  }
});
