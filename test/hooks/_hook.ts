/** Helpers for the hook tests: payloads per host, hook runs, entries written straight to memory/. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectIdFor } from "../../src/store/scope";
import type { RunResult, Sandbox } from "../helpers";

export type Host = "claude" | "codex" | "gemini" | "cursor" | "windsurf" | "opencode";
export type Event = "session-start" | "prompt" | "tool" | "compact" | "subagent-start" | "session-end";

export function hook(
  sb: Sandbox,
  host: Host,
  event: Event,
  payload: unknown,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): RunResult {
  return sb.run(["hook", event, "--agent", host], {
    stdin: typeof payload === "string" ? payload : JSON.stringify(payload),
    cwd: opts.cwd,
    env: opts.env,
  });
}

/** The additionalContext of a Claude/Codex/Gemini answer ("" when none). */
export function contextOf(r: RunResult): string {
  const j = JSON.parse(r.stdout);
  return j.hookSpecificOutput?.additionalContext ?? j.additional_context ?? "";
}

export function claudePrompt(session: string, cwd: string, prompt: string, extra: Record<string, unknown> = {}) {
  return {
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd,
    permission_mode: "default",
    hook_event_name: "UserPromptSubmit",
    prompt,
    ...extra,
  };
}

export function claudeStart(session: string, cwd: string, source = "startup") {
  return {
    session_id: session,
    transcript_path: `/tmp/${session}.jsonl`,
    cwd,
    hook_event_name: "SessionStart",
    source,
  };
}

export function projectId(repoDir: string): string {
  return projectIdFor(`path:${repoDir}`);
}

export type EntrySpec = {
  id: string;
  title: string;
  body: string;
  tags?: string[];
  applies_to?: string[];
  updated?: string;
  kind?: string;
  keywords?: string[];
};

/** Write entries as files (the store picks up hand-written files) — fast for large fixtures. */
export function writeEntries(sb: Sandbox, scope: "global" | string, entries: EntrySpec[]): void {
  const dir =
    scope === "global"
      ? join(sb.cofferHome, "memory", "global", "entries")
      : join(sb.cofferHome, "memory", "projects", scope, "entries");
  mkdirSync(dir, { recursive: true });
  for (const e of entries) {
    const updated = e.updated ?? "2026-01-01T00:00:00Z";
    const lines = [
      "---",
      `id: ${e.id}`,
      `kind: ${e.kind ?? "note"}`,
      `title: ${JSON.stringify(e.title)}`,
      `tags: [${(e.tags ?? []).join(", ")}]`,
    ];
    if (e.keywords?.length) lines.push(`keywords: [${e.keywords.map((k) => JSON.stringify(k)).join(", ")}]`);
    if (e.applies_to?.length) lines.push(`applies_to: [${e.applies_to.map((g) => JSON.stringify(g)).join(", ")}]`);
    lines.push("actor: user", "source: cli", `created: ${updated}`, `updated: ${updated}`, "---", e.body, "");
    writeFileSync(join(dir, `${e.id}.md`), lines.join("\n"));
  }
}

export function writeRules(sb: Sandbox, scope: "global" | string, text: string): void {
  const dir =
    scope === "global" ? join(sb.cofferHome, "memory", "global") : join(sb.cofferHome, "memory", "projects", scope);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rules.md"), text);
}

/** Ids of the `## [ID] title` body blocks in a context. */
export function bodyIds(context: string): string[] {
  return [...context.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1]!);
}

/** Ids of the `- [ID] title` cards in a context. */
export function cardIds(context: string): string[] {
  return [...context.matchAll(/^- \[([^\]]+)\]/gm)].map((m) => m[1]!);
}

export function alreadyLoaded(context: string): string[] | undefined {
  const m = /^already loaded: (.*)$/m.exec(context);
  return m ? m[1]!.split(", ") : undefined;
}
