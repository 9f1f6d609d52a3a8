/**
 * Pi's session files (a real one written by 0.73.1, and the same with a branch and tool traffic
 * added as Pi's session-format.md shows them): the conversation of the branch that ends at the last
 * entry, its acts, and which host wrote the file.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { detectHost } from "../../src/transcripts/discovery";
import { parsePi, piActivity, piHead, piRoot } from "../../src/transcripts/pi";

const FILE = join(import.meta.dir, "..", "fixtures", "transcripts", "pi", "observed-0.73.1.jsonl");
const text = readFileSync(FILE, "utf8");
const ID = "01a23d48-8c6c-7045-81ed-926a59897725";

test("the conversation of a real session, header and title", () => {
  const p = parsePi(text);
  expect(p.host).toBe("pi");
  expect(p.session_id).toBe(ID);
  expect(p.cwd).toBe("/home/u/proj");
  expect(p.title).toBe("Check the deploy script, please");
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", "Check the deploy script, please"],
    ["assistant", "OK."],
    ["user", "And the release notes?"],
    ["assistant", "OK."],
  ]);
  expect(piHead(FILE)).toEqual({ session_id: ID, cwd: "/home/u/proj", first_activity: "2026-12-03T19:01:34.445Z" });
  expect(detectHost(FILE)).toBe("pi");
});

test("only the branch that ends at the last entry; thinking and tool calls are not text; acts keep the tools", () => {
  const line = (o: unknown) => JSON.stringify(o);
  const added = [
    // A branch from the first answer (as /tree makes), then a tool call and its result on it.
    line({
      type: "message",
      id: "b1",
      parentId: "65c99bdc",
      timestamp: "2026-12-03T19:02:00.000Z",
      message: { role: "user", content: [{ type: "text", text: "Show me deploy.sh instead" }] },
    }),
    line({
      type: "message",
      id: "b2",
      parentId: "b1",
      timestamp: "2026-12-03T19:02:01.000Z",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should read it" },
          { type: "text", text: "Reading it." },
          { type: "toolCall", id: "call_1", name: "read", arguments: { path: "deploy.sh" } },
        ],
      },
    }),
    line({
      type: "message",
      id: "b3",
      parentId: "b2",
      timestamp: "2026-12-03T19:02:02.000Z",
      message: {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "read",
        content: [{ type: "text", text: "make release" }],
      },
    }),
    line({
      type: "session_info",
      id: "b4",
      parentId: "b3",
      timestamp: "2026-12-03T19:02:03.000Z",
      name: "Deploy script",
    }),
    "{not json",
  ].join("\n");
  const all = `${text}${added}\n`;
  const p = parsePi(all);
  expect(p.title).toBe("Deploy script");
  expect(p.turns.map((t) => t.text)).toEqual([
    "Check the deploy script, please",
    "OK.",
    "Show me deploy.sh instead",
    "Reading it.",
  ]);
  expect(piActivity(all).map((a) => [a.kind, a.tool ?? "", a.text])).toEqual([
    ["prompt", "", "Check the deploy script, please"],
    ["say", "", "OK."],
    ["prompt", "", "Show me deploy.sh instead"],
    ["say", "", "Reading it."],
    ["tool", "read", JSON.stringify({ path: "deploy.sh" })],
    ["result", "read", "make release"],
  ]);
});

test("oh-my-pi's session file (omp 18.2.3: a title record before the header) reads as Pi's", () => {
  const file = join(import.meta.dir, "..", "fixtures", "transcripts", "pi", "observed-omp-18.2.3.jsonl");
  const id = "01a23df1-d06f-73f8-800f-d747c813accc";
  const p = parsePi(readFileSync(file, "utf8"));
  expect(p.session_id).toBe(id);
  expect(p.cwd).toBe("/home/u/proj");
  expect(p.turns.map((t) => [t.role, t.text])).toEqual([
    ["user", "How does the release process deploy?"],
    ["assistant", "OK."],
  ]);
  expect(piHead(file)).toEqual({ session_id: id, cwd: "/home/u/proj", first_activity: "2026-12-03T22:06:27.439Z" });
  expect(detectHost(file)).toBe("pi");
});

test("PI_CODING_AGENT_DIR=~/… is under home, as Pi and omp read it", () => {
  const saved = { HOME: process.env.HOME, PI_CODING_AGENT_DIR: process.env.PI_CODING_AGENT_DIR };
  Object.assign(process.env, { HOME: "/h", PI_CODING_AGENT_DIR: "~/pa" });
  try {
    expect(piRoot()).toBe("/h/pa/sessions");
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
});
