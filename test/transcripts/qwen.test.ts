/**
 * Qwen Code's chat files (a real one written by 0.24.4 with Coffer linked): the conversation
 * without Coffer's context, tool traffic or system records; its acts; and which host wrote it.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detectHost } from "../../src/transcripts/discovery";
import { parseQwen, qwenActivity, qwenHead } from "../../src/transcripts/qwen";

const FILE = join(import.meta.dir, "..", "fixtures", "transcripts", "qwen", "observed-0.24.4.jsonl");
const text = readFileSync(FILE, "utf8");

test("the conversation: typed prompt and the model's words, no hook context, no tool traffic", () => {
  const p = parseQwen(text);
  expect(p.host).toBe("qwen");
  expect(p.session_id).toBe("96c644c4-a166-45b2-8a3b-9d8c2e40c490");
  expect(p.cwd).toBe("/home/u/proj");
  expect(p.title).toBe("Check the deploy script, please");
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", "Check the deploy script, please"],
    ["assistant", "Let me read it."],
    ["assistant", "The script runs make release."],
  ]);
  expect(p.first_activity).toBe("2026-12-03T18:41:59.765Z");
  expect(JSON.stringify(p)).not.toContain("via Coffer");
});

test("a record Qwen made itself, a repeated uuid and a bad line are not turns", () => {
  const extra = [
    JSON.stringify({
      uuid: "g1",
      sessionId: "s",
      type: "user",
      provenance: "goal_runtime",
      message: { role: "user", parts: [{ text: "Goal check: are we done?" }] },
    }),
    text.split("\n")[0],
    "{not json",
    JSON.stringify({
      uuid: "t1",
      type: "system",
      subtype: "custom_title",
      systemPayload: { customTitle: "Deploy script review" },
    }),
  ].join("\n");
  const p = parseQwen(`${text}${extra}\n`);
  expect(p.turns.length).toBe(3);
  expect(p.title).toBe("Deploy script review");
});

test("acts: the prompt, what the model said, its read_file call and the result", () => {
  const acts = qwenActivity(text).map((a) => [a.kind, a.tool ?? "", a.text]);
  expect(acts).toEqual([
    ["prompt", "", "Check the deploy script, please"],
    ["say", "", "Let me read it."],
    ["tool", "read_file", JSON.stringify({ file_path: "/home/u/proj/deploy/release.sh" })],
    ["result", "read_file", JSON.stringify({ output: "make release\n" })],
    ["say", "", "The script runs make release."],
  ]);
});

test("head and host detection from the file alone", () => {
  expect(qwenHead(FILE)).toMatchObject({
    session_id: "96c644c4-a166-45b2-8a3b-9d8c2e40c490",
    cwd: "/home/u/proj",
  });
  expect(detectHost(FILE)).toBe("qwen");
});
