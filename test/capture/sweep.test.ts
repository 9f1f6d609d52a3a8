/** Sweep selection (settle, recency, ledger, inbox, git, limit, order) with controlled mtimes. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  FIXTURES,
  placeClaude,
  placeCodex,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeQueue,
} from "../kit";

let sb: Sandbox;
const ids = {
  fresh: "aaaaaaaa-0000-4000-8000-000000000001", // 5 minutes idle: not settled
  recent: "aaaaaaaa-0000-4000-8000-000000000002", // 20 minutes
  days3: "aaaaaaaa-0000-4000-8000-000000000003", // 3 days
  old: "aaaaaaaa-0000-4000-8000-000000000004", // 8 days: outside recency
  nogit: "aaaaaaaa-0000-4000-8000-000000000005", // not in a repository
  done: "aaaaaaaa-0000-4000-8000-000000000006", // in the ledger
  inbox: "aaaaaaaa-0000-4000-8000-000000000007", // waiting in the inbox
  failing: "aaaaaaaa-0000-4000-8000-000000000008", // failed 3 times already
  codex: "bbbbbbbb-0000-4000-8000-000000000009", // a Codex session, 2 days
};

function ledger(file: string, host: string, session: string, outcome: string): void {
  const st = statSync(file);
  const line = {
    at: new Date().toISOString(),
    host,
    session_id: session,
    sha256: createHash("sha256").update(readFileSync(file)).digest("hex"),
    size: st.size,
    mtime_ms: st.mtimeMs,
    outcome,
    entries: 0,
  };
  mkdirSync(join(sb.cofferHome, "state"), { recursive: true });
  appendFileSync(join(sb.cofferHome, "state", "distilled.jsonl"), `${JSON.stringify(line)}\n`);
}

const pick = async (extraConfig = "") => {
  writeFileSync(join(sb.cofferHome, "config.toml"), extraConfig);
  const r = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json"]);
  expect(r.code).toBe(0);
  return r.json().sessions.map((s: { session_id: string }) => s.session_id) as string[];
};

beforeAll(async () => {
  sb = sandbox("coffer-sweep-");
  mkdirSync(sb.cofferHome, { recursive: true });
  const repo = sb.repo("shop", "git@github.com:acme/shop.git");
  const plain = join(sb.root, "work", "scratch");
  mkdirSync(plain, { recursive: true });
  const session = simpleClaudeSession();
  placeClaude(sb, session, { id: ids.fresh, cwd: repo, ageMinutes: 5 });
  placeClaude(sb, session, { id: ids.recent, cwd: repo, ageMinutes: 20 });
  placeClaude(sb, session, { id: ids.days3, cwd: repo, ageMinutes: 3 * 1440 });
  placeClaude(sb, session, { id: ids.old, cwd: repo, ageMinutes: 8 * 1440 });
  placeClaude(sb, session, { id: ids.nogit, cwd: plain, ageMinutes: 60 });
  const done = placeClaude(sb, session, { id: ids.done, cwd: repo, ageMinutes: 2 * 1440 });
  ledger(done, "claude", ids.done, "distilled");
  const failing = placeClaude(sb, session, { id: ids.failing, cwd: repo, ageMinutes: 4 * 1440 });
  for (let i = 0; i < 3; i++) ledger(failing, "claude", ids.failing, "failed");
  const inbox = placeClaude(sb, session, { id: ids.inbox, cwd: repo, ageMinutes: 1440 });
  writeQueue(sb, [{ transcript_path: inbox, host: "claude", session: ids.inbox }]);
  expect((await runAsync(sb, ["observe", "--queue"])).code).toBe(0);
  const rollout = readFileSync(join(FIXTURES, "codex", "preambles-and-duplicates.jsonl"), "utf8");
  placeCodex(sb, rollout, { id: ids.codex, cwd: repo, from: "/home/dev/work/billing", ageMinutes: 2 * 1440 + 30 });
});
afterAll(() => sb.cleanup());

test("idle >= 15 min, within 7 days, not distilled, not in the inbox, in a git project; oldest first", async () => {
  expect(await pick()).toEqual([ids.days3, ids.codex, ids.recent]);
});

test("at most distill.max_per_pass, the oldest", async () => {
  expect(await pick("[distill]\nmax_per_pass = 2\n")).toEqual([ids.days3, ids.codex]);
});

test("settle and recency follow the config", async () => {
  expect(await pick("[distill]\nsettle_minutes = 0\n")).toEqual([ids.days3, ids.codex, ids.recent, ids.fresh]);
  expect(await pick("[distill]\nrecency_days = 10\n")).toEqual([ids.old, ids.days3, ids.codex, ids.recent]);
  expect(await pick("[distill]\nrecency_days = 1\n")).toEqual([ids.recent]);
});

test("--agent narrows the sweep to one host", async () => {
  writeFileSync(join(sb.cofferHome, "config.toml"), "");
  const r = await runAsync(sb, ["distill", "sweep", "--dry-run", "--json", "--agent", "codex"]);
  expect(r.json().sessions.map((s: { session_id: string }) => s.session_id)).toEqual([ids.codex]);
});

test("distill list shows status from the ledger and the project, newest first", async () => {
  const r = await runAsync(sb, ["distill", "list", "--json", "--limit", "100"]);
  const rows = r.json().sessions as {
    session_id: string;
    status: string;
    project: string | null;
    messages: number;
    last_activity: string;
  }[];
  expect(rows.length).toBe(9);
  const by = (id: string) => rows.find((x) => x.session_id === id)!;
  expect(by(ids.done).status).toBe("done");
  expect(by(ids.recent).status).toBe("never");
  expect(by(ids.nogit).project).toBeNull();
  expect(by(ids.recent).project).toBe("shop");
  expect(by(ids.codex).messages).toBe(7);
  expect(by(ids.recent).messages).toBe(2);
  const times = rows.map((x) => x.last_activity);
  expect([...times].sort().reverse()).toEqual(times);
  const codexOnly = (await runAsync(sb, ["distill", "list", "--agent", "codex", "--json"])).json().sessions;
  expect(codexOnly.map((s: { session_id: string }) => s.session_id)).toEqual([ids.codex]);
});

test("distill run --pending --dry-run picks the sessions not in the ledger within --since", async () => {
  const r = await runAsync(sb, ["distill", "run", "--pending", "--dry-run", "--since", "3d", "--json"]);
  expect(r.code).toBe(0);
  const sessions = r.json().results.map((x: { session: string }) => x.session);
  expect(sessions).not.toContain(ids.done);
  expect(sessions).not.toContain(ids.old);
  expect(sessions).toContain(ids.fresh);
  expect(sessions).toContain(ids.codex);
  const bad = await runAsync(sb, ["distill", "run", "--since", "soon"]);
  expect(bad.code).toBe(2);
});
