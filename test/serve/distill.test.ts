/**
 * The contract `coffer serve` relies on (src/serve/sessions.ts and the worker's src/capture/pass.ts), in-process against a sandboxed
 * HOME/COFFER_HOME: endSession distills (or queues without a model), the worker drains the queue into the inbox and (with
 * distill.sweep on) distills idle sessions, inbox approve/reject, transcripts listing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workerPass } from "../../src/capture/pass";
import * as api from "../../src/serve/sessions";
import {
  entryFiles,
  type ModelServer,
  modelServer,
  placeClaude,
  readQueueFile,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";

let sb: Sandbox;
let repo: string;
let server: ModelServer;
const saved = { HOME: process.env.HOME, COFFER_HOME: process.env.COFFER_HOME, KEY: process.env.COFFER_TEST_KEY };
const id = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, "0")}`;

beforeAll(() => {
  sb = sandbox("coffer-api-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
  process.env.HOME = sb.home;
  process.env.COFFER_HOME = sb.cofferHome;
  process.env.COFFER_TEST_KEY = "k";
  server = modelServer([
    {
      text: JSON.stringify([
        {
          kind: "decision",
          title: "Deploys use make release",
          body: "We deploy with make release so the changelog is generated.",
        },
      ]),
    },
  ]);
});
afterAll(() => {
  server.stop();
  for (const [k, v] of Object.entries({
    HOME: saved.HOME,
    COFFER_HOME: saved.COFFER_HOME,
    COFFER_TEST_KEY: saved.KEY,
  })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  sb.cleanup();
});

test("endSession without a model queues the session (no_model); unknown ones are not_found; other hosts are skipped", async () => {
  const path = placeClaude(sb, simpleClaudeSession(), { id: id(1), cwd: repo, ageMinutes: 60 });
  expect(await api.endSession("claude", id(1))).toBe("no_model");
  expect(await api.endSession("claude", id(1), path)).toBe("no_model");
  expect(readQueueFile(sb).map((q) => [q.session, q.transcript_path])).toEqual([[id(1), path]]); // one per session
  expect(await api.endSession("claude", "no-such-session")).toBe("not_found");
  expect(await api.endSession("cursor", "x")).toBe("skipped");
});

test("listTranscripts: project, messages, activity, status, path", async () => {
  const [t] = await api.listTranscripts("claude");
  expect(t).toEqual(
    expect.objectContaining({
      host: "claude",
      session_id: id(1),
      project: "shop",
      messages: 2,
      status: "never",
      cwd: repo,
    }),
  );
  expect(t!.path.endsWith(`${id(1)}.jsonl`)).toBe(true);
  expect(await api.listTranscripts("windsurf")).toEqual([]);
});

test("workerPass drains the queue into the inbox; the sweep runs unless distill.sweep is off", async () => {
  placeClaude(sb, simpleClaudeSession("Where do logs go?", "To /var/log/shop, rotated daily."), {
    id: id(2),
    cwd: repo,
    ageMinutes: 60,
  });
  writeModelConfig(sb, "openai", server.url);
  const modelOnly = readFileSync(join(sb.cofferHome, "config.toml"), "utf8");
  writeFileSync(join(sb.cofferHome, "config.toml"), `${modelOnly}\n[distill]\nsweep = false\n`);
  const first = await workerPass();
  expect(first).toEqual({
    harvested: 0,
    observed: 1,
    distilled: 0,
    skipped: 0,
    errors: [],
    not_distilling: "the sweep is off (distill.sweep = false)",
  });
  expect(readQueueFile(sb)).toEqual([]);
  const inbox = await api.listInbox();
  expect(inbox.map((i) => [i.session, i.project, i.messages])).toEqual([[id(1), "shop", 2]]);
  expect(server.requests.length).toBe(0);

  writeFileSync(join(sb.cofferHome, "config.toml"), modelOnly); // on by default
  const second = await workerPass();
  // id(1) waits in the inbox (a human reviews it); id(2) is idle and unreviewed: swept
  expect(second).toEqual({ harvested: 0, observed: 0, distilled: 1, skipped: 0, errors: [] });
  expect(server.requests.length).toBe(1);
  expect(server.requests[0]!.body.messages[1].content).toContain("Where do logs go?");
  expect((await api.listTranscripts("claude")).find((t) => t.session_id === id(2))!.status).toBe("done");
  expect(await workerPass()).toEqual({ harvested: 0, observed: 0, distilled: 0, skipped: 0, errors: [] });
});

test("endSession with a model distills at once, then reports already_distilled", async () => {
  placeClaude(sb, simpleClaudeSession("How do we rotate keys?", "With scripts/rotate.sh every quarter."), {
    id: id(3),
    cwd: repo,
    ageMinutes: 1,
  });
  const before = server.requests.length;
  expect(await api.endSession("claude", id(3))).toBe("distilled");
  expect(server.requests.length).toBe(before + 1);
  expect(await api.endSession("claude", id(3))).toBe("already_distilled");
  expect(readQueueFile(sb).some((q) => q.session === id(3))).toBe(false);
});

test("approveInbox / rejectInbox / distillTranscripts", async () => {
  const [item] = await api.listInbox();
  expect((await api.showInbox(item!.id))!.turns.length).toBe(2);
  const approved = await api.approveInbox(item!.id);
  expect(approved.status).toBe("approved");
  expect(approved.entries.length).toBe(1);
  expect(await api.listInbox()).toEqual([]);
  expect((await api.approveInbox(item!.id)).status).toBe("not_found");
  expect((await api.rejectInbox("01ARZ3NDEKTSV4RRFFQ69G5FAV")).status).toBe("not_found");

  const results = await api.distillTranscripts("claude", [id(1), id(2), "missing-one"]);
  expect(results.map((r) => r.outcome)).toEqual(["already_distilled", "already_distilled", "not_found"]);
  const preview = await api.transcriptPreview("claude", id(2));
  expect(preview!.text).toContain("[user]\nWhere do logs go?");
  expect(entryFiles(sb).length).toBe(1); // the same insight twice: one entry
});
