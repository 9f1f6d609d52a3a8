/**
 * Distillation's surroundings: insights as a model writes them, the model's config, the session
 * queue, the ledger, team proposals and the background sweep's record.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Sandbox } from "./sandbox";

export type Insight = { kind: string; title: string; body: string };

export const fenced = (insights: Insight[]) => `\`\`\`json\n${JSON.stringify(insights, null, 2)}\n\`\`\``;

export function writeModelConfig(
  sb: Sandbox,
  kind: "openai" | "anthropic",
  url: string,
  extra: Record<string, string | number> = {},
): void {
  const lines = [
    "[model]",
    `provider = "${kind}"`,
    `model = "test-model"`,
    `base_url = "${kind === "openai" ? `${url}/v1` : url}"`,
    `api_key_env = "COFFER_TEST_KEY"`,
  ];
  for (const [k, v] of Object.entries(extra)) lines.push(`${k} = ${typeof v === "number" ? v : JSON.stringify(v)}`);
  mkdirSync(sb.cofferHome, { recursive: true });
  writeFileSync(join(sb.cofferHome, "config.toml"), `${lines.join("\n")}\n`);
}

/** What `claude -p --output-format json` prints on success (docs/hosts-observed.md), cut to what Coffer reads. */
export const claudeOk = (text: string) =>
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    result: text,
    usage: { input_tokens: 1200, output_tokens: 80 },
  });

export type QueueEntry = { transcript_path: string; host: string; session: string; at?: string };

/** Write `queue/session-queue.json` as the session-end hook would have. */
export function writeQueue(sb: Sandbox, items: QueueEntry[]): void {
  const file = join(sb.cofferHome, "queue", "session-queue.json");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      items.map((i, n) => ({ at: new Date(Date.now() - (items.length - n) * 1000).toISOString(), ...i })),
      null,
      2,
    ),
  );
}

export function readQueueFile(sb: Sandbox): QueueEntry[] {
  try {
    return JSON.parse(readFileSync(join(sb.cofferHome, "queue", "session-queue.json"), "utf8"));
  } catch {
    return [];
  }
}

/** `state/distilled.jsonl` as records (empty when there is none). */
export function ledgerLines(sb: Sandbox): Record<string, any>[] {
  try {
    return readFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/** Queue a team-lane proposal as distillation does (`inbox/team-<id>.json`), for tests of the surfaces. */
export function writeTeamProposal(
  sb: Sandbox,
  id: string,
  project: { id: string; label: string; origin?: string },
  entry: { id: string; title: string; kind?: string },
): void {
  const file = join(sb.cofferHome, "inbox", `team-${id}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const proposal = {
    version: 1,
    kind: "team",
    id,
    created: "2026-11-20T10:00:00.000Z",
    host: "claude",
    session: "s-team",
    project,
    entry: { kind: "convention", ...entry },
  };
  writeFileSync(file, JSON.stringify(proposal, null, 2));
}

/** state/sweep.json: the last background sweep's record, if any. */
export const sweepRecordFile = (sb: Sandbox) => join(sb.cofferHome, "state", "sweep.json");
export const sweepRecord = (sb: Sandbox) =>
  existsSync(sweepRecordFile(sb)) ? JSON.parse(readFileSync(sweepRecordFile(sb), "utf8")) : undefined;

/** Wait (polling files, at most `ms`) until the recorded sweep has finished and let go of its lock. */
export async function sweepFinished(sb: Sandbox, ms = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const r = sweepRecord(sb);
    if (r?.finished && !existsSync(join(sb.cofferHome, "state", "sweep.lock"))) return r;
    await Bun.sleep(100);
  }
  throw new Error(`no finished sweep: ${JSON.stringify(sweepRecord(sb))}`);
}
