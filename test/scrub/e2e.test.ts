/**
 * Secrets never enter memory, whichever way they come in: `coffer remember` (CLI), the MCP tool
 * `coffer__remember`, the HTTP API, `handoff set`, `rules add`, a transcript distilled by a model,
 * and a hand-edited file. None of them may reach an entry file, index.db (+ WAL), the audit log,
 * the model request, or the sync remote; each write says what it scrubbed; --allow-secret keeps
 * it on purpose; `coffer sync` refuses to commit a file that holds a secret and names it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  allFiles,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  writeModelConfig,
} from "../kit";

/** Processes on a shared 2-core machine: generous. */
const SLOW = 60_000;

import { startServe, stdioClient } from "../kit";

// one distinct secret per way in, so a leak names its path
const S = {
  cli: "sk_live_51HqZ7Rk2mVx9Lp4Tz8Wn3Jc6",
  cliTitle: "ghp_Zq8vR2mK9xLw4Tn7Bc3Hd6Fg1Js5Kp0Qa2W",
  mcp: "xoxb-583920174628-4719305826417-Qm3Zr8Tx2Lp9Vb4Nc7Wd1Hs",
  http: "glpat-Qm3Zr8Tx2Lp9Vb4Nc7Wd",
  handoff: "npm_Qm3Zr8Tx2Lp9Vb4Nc7Wd1Hs6Jf0Kg5Ya8Xe2Ru",
  rule: "AKIAZ7QK3RT5MW2XP4LN",
  transcript: "sk-proj-Xq7R9t2Lm4Np6Kw8Zb3Vc5Hd1Jg0Fs",
  transcriptPw: "Pg5Qw8Er2!xT",
  handEdited: "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",
  editor: "pypi-AgEIcHlwaS5vcmcCJDk4ZjMxYzQ1LTk2ZGEtNGRmMy1iZjgxLWE5NmNhYmQ0ZWNlOQACKlszLCJiZjQ1In1d",
  privateNote: "the vault unseal phrase is orange-lamp-42",
};
const ALLOWED = "sk_test_51HqZ7Rk2mVx9Lp4Tz8Wn3Jc6AllowMe";

let sb: Sandbox;
let repo: string;
const servers: ModelServer[] = [];

const leaks = (text: string) =>
  Object.entries(S)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);

beforeAll(() => {
  sb = sandbox("coffer-scrub-e2e-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
});
afterAll(() => {
  for (const s of servers) s.stop();
  sb.cleanup();
});

describe("every way in", () => {
  test(
    "coffer remember: the secret is replaced and the caller is told",
    () => {
      const r = sb.run(
        ["remember", `Payments use ${S.cli} <private>${S.privateNote}</private>`, "--title", `key ${S.cliTitle}`],
        { cwd: repo },
      );
      expect(r.code).toBe(0);
      // the <private> span is dropped and counted with the secrets
      expect(r.stdout + r.stderr).toContain("scrubbed 3 secrets (stripe, private, github)");
      expect(leaks(r.stdout + r.stderr)).toEqual([]);
      const j = sb.run(["remember", `Also ${S.cli} again`, "--json"], { cwd: repo }).json();
      expect(j.scrubbed).toBe("scrubbed 1 secret (stripe)");
    },
    SLOW,
  );

  test(
    "coffer remember --allow-secret keeps it, on purpose",
    () => {
      const r = sb.run(["remember", `Test-mode key ${ALLOWED}`, "--allow-secret", "--scope", "global"]);
      expect(r.code).toBe(0);
      const files = allFiles(join(sb.cofferHome, "memory")).map(([, t]) => t);
      expect(files.some((t) => t.includes(ALLOWED))).toBe(true);
    },
    SLOW,
  );

  test(
    "MCP coffer__remember",
    async () => {
      const mcp = await stdioClient(sb, repo);
      try {
        const res = await mcp.ok("remember", { text: `The Slack bot token is ${S.mcp}` });
        expect(res.scrubbed).toBe("scrubbed 1 secret (slack)");
        expect(leaks(JSON.stringify(res))).toEqual([]);
      } finally {
        await mcp.close();
      }
    },
    SLOW,
  );

  test(
    "HTTP API POST /api/v1/entries",
    async () => {
      const served = await startServe(sb, repo, ["--no-worker"]);
      try {
        const res = await served.api("/api/v1/entries", {
          method: "POST",
          body: { text: `Mirror token: ${S.http}`, cwd: repo },
        });
        expect(res.status).toBe(201);
        const body = await res.json();
        expect(body.scrubbed).toBe("scrubbed 1 secret (gitlab)");
        expect(leaks(JSON.stringify(body))).toEqual([]);
      } finally {
        await served.stop();
      }
    },
    SLOW,
  );

  test(
    "handoff set and rules add",
    () => {
      const h = sb.run(["handoff", "set", `Publishing needs NPM_TOKEN=${S.handoff} in CI`], { cwd: repo });
      expect(h.code).toBe(0);
      expect(h.stdout + h.stderr).toContain("scrubbed 1 secret (npm)");
      const r = sb.run(["rules", "add", `Never commit ${S.rule}`], { cwd: repo });
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).toContain("scrubbed 1 secret (aws)");
    },
    SLOW,
  );

  test(
    "a transcript distilled by a model: the request and the insights are clean",
    async () => {
      const id = "5e5e5e5e-6f6f-4a7a-8b8b-9c9c9c9c9c9c";
      const line = (uuid: string, role: "user" | "assistant", text: string) =>
        JSON.stringify({
          type: role,
          uuid,
          parentUuid: null,
          sessionId: id,
          cwd: "__CWD__",
          gitBranch: "main",
          isSidechain: false,
          userType: "external",
          version: "2.1.220",
          timestamp: "2026-11-23T10:01:00.000Z",
          message:
            role === "user"
              ? { role, content: text }
              : {
                  id: `m${uuid}`,
                  type: "message",
                  role,
                  model: "claude-sonnet-4-6",
                  content: [{ type: "text", text }],
                },
        });
      placeClaude(
        sb,
        `${line("u1", "user", `Deploy fails; OPENAI_API_KEY=${S.transcript} and the db password is ${S.transcriptPw}`)}\n${line("u2", "assistant", "The key was rotated; update the secret store and redeploy.")}\n`,
        { id, cwd: repo },
      );
      // a careless model echoes a secret it could only know if scrubbing failed
      const echo = JSON.stringify([
        {
          kind: "gotcha",
          title: "Rotated key breaks deploys",
          body: `Update ${S.transcript} everywhere (db password: ${S.transcriptPw}).`,
        },
      ]);
      const openai = modelServer([{ text: echo }]);
      servers.push(openai);
      writeModelConfig(sb, "openai", openai.url);
      const r = await runAsync(sb, ["distill", "run", id], { env: { COFFER_TEST_KEY: "loopback-test-key" } });
      expect(r.code).toBe(0);
      expect(openai.requests.length).toBe(1);
      expect(leaks(openai.requests[0]!.raw)).toEqual([]);
      expect(openai.requests[0]!.raw).toContain("[redacted]");
    },
    SLOW,
  );

  test(
    "coffer edit: what the editor adds is scrubbed before the entry is written",
    () => {
      const id = sb.run(["remember", "Release checklist for the shop", "--json"], { cwd: repo }).json().id;
      const editor = `sh -c 'printf "\\nPYPI_TOKEN=${S.editor}\\n" >> "$1"' --`;
      const r = sb.run(["edit", id], { cwd: repo, env: { EDITOR: editor, VISUAL: "" } });
      expect(r.code).toBe(0);
      const shown = sb.run(["show", id], { cwd: repo });
      expect(shown.stdout).toContain("PYPI_TOKEN=[redacted]");
      expect(leaks(shown.stdout)).toEqual([]);
      // the file itself, not only the index
      const file = allFiles(join(sb.cofferHome, "memory")).find(([p]) => p.endsWith(`${id}.md`));
      expect(file?.[1]).toContain("PYPI_TOKEN=[redacted]");
    },
    SLOW,
  );

  test(
    "a hand-edited file: the index holds the scrubbed text; scan --fix fixes the file",
    () => {
      const dir = join(sb.cofferHome, "memory", "global", "entries");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, "01M8N8A8RP637X6AFMBCRAHAND.md");
      writeFileSync(
        file,
        `---\nid: 01M8N8A8RP637X6AFMBCRAHAND\nkind: note\ntitle: Model download\ntags: []\nactor: user\nsource: cli\ncreated: 2026-11-30T03:34:58Z\nupdated: 2026-11-30T03:34:58Z\n---\nDownload weights with ${S.handEdited} from the hub\n`,
      );
      const recalled = sb.run(["recall", "download weights hub", "--json"], { cwd: repo });
      expect(recalled.code).toBe(0);
      expect(recalled.stdout).toContain("01M8N8A8RP637X6AFMBCRAHAND");
      expect(leaks(recalled.stdout)).toEqual([]);
      expect(sb.run(["scan"]).code).toBe(1);
      expect(sb.run(["scan", "--fix"]).code).toBe(0);
      expect(readFileSync(file, "utf8")).not.toContain(S.handEdited);
    },
    SLOW,
  );

  test(
    "nothing under COFFER_HOME holds a secret: entries, rules, handoff, index.db (+ WAL), audit, ledger",
    () => {
      expect(sb.run(["reindex"]).code).toBe(0);
      const files = allFiles(sb.cofferHome);
      expect(files.some(([p]) => p.endsWith("index.db"))).toBe(true);
      expect(files.some(([p]) => p.endsWith("audit.jsonl"))).toBe(true);
      for (const [path, text] of files) expect({ path, leaks: leaks(text) }).toEqual({ path, leaks: [] });
    },
    SLOW,
  );
});

describe("coffer sync", () => {
  test(
    "refuses to commit a file that holds a secret, names it; the remote never sees it",
    () => {
      const remote = join(sb.root, "remote.git");
      const git = (cwd: string, ...args: string[]) =>
        Bun.spawnSync(["git", ...args], {
          cwd,
          env: { ...sb.env, GIT_CONFIG_NOSYSTEM: "1" },
          stdout: "pipe",
          stderr: "pipe",
        });
      git(sb.root, "init", "-q", "--bare", "-b", "main", remote);
      const env = {
        GIT_AUTHOR_NAME: "Tester",
        GIT_AUTHOR_EMAIL: "t@example.test",
        GIT_COMMITTER_NAME: "Tester",
        GIT_COMMITTER_EMAIL: "t@example.test",
      };
      // an entry kept with --allow-secret is in memory/: sync must refuse it
      expect(sb.run(["remember", `Test-mode key ${ALLOWED}`, "--allow-secret", "--scope", "global"]).code).toBe(0);
      const init = sb.run(["sync", "--init", remote], { env });
      expect(init.code).not.toBe(0);
      expect(init.stdout + init.stderr).toMatch(/global\/entries\/[0-9A-Z]{26}\.md/);
      expect(init.stdout + init.stderr).toContain("stripe");
      // once fixed, sync goes through, and the remote holds no secret at all
      expect(sb.run(["scan", "--fix"]).code).toBe(0);
      const ok = sb.run(["sync"], { env });
      expect({ code: ok.code, err: ok.stderr }).toEqual({ code: 0, err: ok.stderr });
      const log = git(remote, "log", "-p", "--all").stdout.toString();
      expect(log.length).toBeGreaterThan(100);
      expect(leaks(log)).toEqual([]);
      expect(log).not.toContain(ALLOWED);
    },
    SLOW,
  );
});
