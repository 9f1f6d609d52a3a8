/** Agents' transcripts placed where the agents keep them, from fixtures or made up, with an age. */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Sandbox } from "./sandbox";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "transcripts");

/** Claude Code's project directory name for a cwd: every non-alphanumeric character as "-". */
export const claudeDir = (cwd: string) => cwd.replace(/[^A-Za-z0-9]/g, "-");

/** Place a Claude Code transcript for `cwd` (fixture placeholders replaced), with an optional age. */
export function placeClaude(
  sb: Sandbox,
  text: string,
  opts: { id: string; cwd: string; ageMinutes?: number; from?: string },
): string {
  const file = join(sb.home, ".claude", "projects", claudeDir(opts.cwd), `${opts.id}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  let body = text.split(opts.from ?? "__CWD__").join(opts.cwd);
  body = body.replace(/"sessionId":"[^"]*"/g, `"sessionId":"${opts.id}"`);
  writeFileSync(file, body);
  if (opts.ageMinutes !== undefined) age(file, opts.ageMinutes);
  return file;
}

/** Place a Codex rollout under sessions/YYYY/MM/DD for `cwd`. */
export function placeCodex(
  sb: Sandbox,
  text: string,
  opts: { id: string; cwd: string; ageMinutes?: number; from?: string },
): string {
  const when = new Date(Date.now() - (opts.ageMinutes ?? 0) * 60_000);
  const day = when.toISOString().slice(0, 10).split("-");
  const file = join(
    sb.home,
    ".codex",
    "sessions",
    day[0]!,
    day[1]!,
    day[2]!,
    `rollout-${when.toISOString().slice(0, 19).replace(/:/g, "-")}-${opts.id}.jsonl`,
  );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    text
      .split(opts.from ?? "__CWD__")
      .join(opts.cwd)
      .replace(/"id":"01a2b3c4-[^"]*"/, `"id":"${opts.id}"`),
  );
  if (opts.ageMinutes !== undefined) age(file, opts.ageMinutes);
  return file;
}

export function age(file: string, minutes: number): void {
  const t = new Date(Date.now() - minutes * 60_000);
  utimesSync(file, t, t);
}

/** A simple Claude Code session in `cwd` with one exchange (for selection tests). */
export function simpleClaudeSession(
  text = "How do we deploy?",
  answer = "With make release, never git push --tags.",
): string {
  const rec = (type: string, content: unknown, i: number) =>
    JSON.stringify({
      type,
      uuid: `r${i}`,
      sessionId: "x",
      cwd: "__CWD__",
      isSidechain: false,
      timestamp: `2026-11-20T10:0${i}:00.000Z`,
      message: { id: type === "assistant" ? `m${i}` : undefined, role: type, content },
    });
  return `${[rec("user", text, 1), rec("assistant", [{ type: "text", text: answer }], 2)].join("\n")}\n`;
}
