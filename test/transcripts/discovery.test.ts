/**
 * Finding sessions on disk for every host (`coffer distill list` / `show` through the binary):
 * where each agent keeps them, what is left out (subagents, migrated files), project paths.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeDir, FIXTURES, placeClaude, placeCodex, type Sandbox, sandbox, simpleClaudeSession } from "../kit";

let sb: Sandbox;
let repo: string;
let other: string;
const ID = {
  claude: "eeeeeeee-0000-4000-8000-000000000001",
  codex: "eeeeeeee-0000-4000-8000-000000000002",
  codexSub: "eeeeeeee-0000-4000-8000-000000000003",
};

beforeAll(() => {
  sb = sandbox("coffer-discovery-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  other = sb.repo("etl");
  // Claude: a session, its subagent transcript, an old-style agent-*.jsonl
  placeClaude(sb, simpleClaudeSession(), { id: ID.claude, cwd: repo });
  const dir = join(sb.home, ".claude", "projects", claudeDir(repo));
  mkdirSync(join(dir, ID.claude, "subagents"), { recursive: true });
  writeFileSync(join(dir, ID.claude, "subagents", "agent-a1.jsonl"), simpleClaudeSession().replaceAll("__CWD__", repo));
  writeFileSync(join(dir, "agent-b2.jsonl"), simpleClaudeSession().replaceAll("__CWD__", repo));
  // Codex: a session and a subagent thread's rollout
  const rollout = readFileSync(join(FIXTURES, "codex", "preambles-and-duplicates.jsonl"), "utf8");
  placeCodex(sb, rollout, { id: ID.codex, cwd: repo, from: "/home/dev/work/billing" });
  const sub = rollout.replace(
    '"source":"cli"',
    '"source":{"subagent":{"thread_spawn":{"parent_thread_id":"p","depth":1}}}',
  );
  placeCodex(sb, sub, { id: ID.codexSub, cwd: repo, from: "/home/dev/work/billing" });
  // Gemini: a slug directory with its .project_root marker, a legacy hash directory known from
  // projects.json, a .json migrated to .jsonl (only the .jsonl counts) and a subagent chat
  const gem = readFileSync(join(FIXTURES, "gemini", "session-rewind.jsonl"), "utf8");
  const slug = join(sb.home, ".gemini", "tmp", "shop");
  mkdirSync(join(slug, "chats", "5e0c7a91-parent"), { recursive: true });
  writeFileSync(join(slug, ".project_root"), repo);
  writeFileSync(join(slug, "chats", "session-2026-11-22T08-00-5e0c7a91.jsonl"), gem);
  writeFileSync(
    join(slug, "chats", "session-2026-11-22T08-00-5e0c7a91.json"),
    JSON.stringify({ sessionId: "5e0c7a91-2f43-4d1b-a8e6-93c2d1f0b7aa", messages: [] }),
  );
  writeFileSync(join(slug, "chats", "5e0c7a91-parent", "sub-1.jsonl"), gem.replace("5e0c7a91-2f43", "99999999-2f43"));
  const hash = createHash("sha256").update(other).digest("hex");
  mkdirSync(join(sb.home, ".gemini", "tmp", hash, "chats"), { recursive: true });
  writeFileSync(join(sb.home, ".gemini", "projects.json"), JSON.stringify({ projects: { [other]: "etl" } }));
  writeFileSync(
    join(sb.home, ".gemini", "tmp", hash, "chats", "session-2026-01-16T18-34-3739ef95.json"),
    readFileSync(join(import.meta.dir, "..", "fixtures", "upstream", "gemini", "session-legacy.json")),
  );
});
afterAll(() => sb.cleanup());

const list = (...args: string[]) => {
  const r = sb.run(["distill", "list", "--json", ...args]);
  expect(r.code).toBe(0);
  return r.json().sessions as {
    host: string;
    session_id: string;
    project: string | null;
    messages: number;
    cwd: string | null;
    title: string;
  }[];
};

test("each host's sessions, without subagent transcripts or migrated copies", () => {
  const all = list("--limit", "100");
  expect(all.map((s) => `${s.host}:${s.session_id}`).sort()).toEqual(
    [
      `claude:${ID.claude}`,
      `codex:${ID.codex}`,
      "gemini:5e0c7a91-2f43-4d1b-a8e6-93c2d1f0b7aa",
      "gemini:session-2026-01-16T18-34-3739ef95",
    ].sort(),
  );
});

test("project paths: Claude and Codex from the transcript, Gemini from .project_root or projects.json + hash", () => {
  const by = (id: string) => list("--limit", "100").find((s) => s.session_id === id)!;
  expect(by(ID.claude)).toEqual(expect.objectContaining({ cwd: repo, project: "shop", messages: 2 }));
  expect(by(ID.codex)).toEqual(
    expect.objectContaining({ cwd: repo, project: "shop", title: "Idempotent refund webhooks" }),
  );
  expect(by("5e0c7a91-2f43-4d1b-a8e6-93c2d1f0b7aa")).toEqual(
    expect.objectContaining({ cwd: repo, project: "shop", messages: 4 }),
  );
  expect(by("session-2026-01-16T18-34-3739ef95")).toEqual(
    expect.objectContaining({ cwd: other, project: "etl", messages: 2 }),
  );
});

test("show finds a session by id prefix or path; ambiguity and absence are clear errors", () => {
  const byPrefix = sb.run(["distill", "show", "5e0c7a91"]);
  expect(byPrefix.code).toBe(0);
  expect(byPrefix.stdout).toStartWith("Transcript of a gemini session in project shop:");
  const byPath = sb.run([
    "distill",
    "show",
    join(sb.home, ".gemini", "tmp", "shop", "chats", "session-2026-11-22T08-00-5e0c7a91.jsonl"),
  ]);
  expect(byPath.stdout).toBe(byPrefix.stdout);
  const ambiguous = sb.run(["distill", "show", "eeeeeeee"]);
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toContain("matches 3 sessions"); // named explicitly, a subagent's transcript counts
  expect(sb.run(["distill", "show", "eeeeeeee-0000-4000-8000-000000000001", "--agent", "claude"]).code).toBe(0);
  expect(sb.run(["distill", "show", "eeeeeeee", "--agent", "claude"]).code).toBe(0);
  const none = sb.run(["distill", "show", "ffffffff"]);
  expect(none.code).toBe(1);
  expect(none.stderr).toContain("coffer distill list");
  expect(sb.run(["distill", "list", "--agent", "cursor"]).code).toBe(2);
});
