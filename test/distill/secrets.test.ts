/**
 * A transcript carrying every secret kind of SPEC 6 goes through every path out of the machine
 * and into storage: `distill show`, `distill run` against an OpenAI-compatible server,
 * `observe --queue` into the inbox, `inbox approve` against an Anthropic-shaped server. None of
 * the secrets may appear in any request body, entry file, inbox trace, the index or anything
 * else under COFFER_HOME — even when the model echoes secrets back.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  allFiles,
  entryFiles,
  FIXTURES,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  writeModelConfig,
  writeQueue,
} from "../kit";

const secrets = JSON.parse(readFileSync(join(FIXTURES, "secrets", "secrets.json"), "utf8")) as Record<string, string>;
const transcript = readFileSync(join(FIXTURES, "secrets", "claude-every-secret.jsonl"), "utf8");
const env = { COFFER_TEST_KEY: "loopback-test-key" };

/** A careless model: its insights quote secrets it could only have seen if scrubbing failed (or invented). */
const echoing = JSON.stringify([
  {
    kind: "decision",
    title: `Secrets move to the vault (was ${secrets.github_pat_classic})`,
    body: `Rotate ${secrets.anthropic_key} and ${secrets.aws_access_key_id}; DATABASE_URL=postgres://deploy:${secrets.url_password}@db/shop.`,
  },
  {
    kind: "todo",
    title: "Rotate every key listed in the session",
    body: `Including JWT_SECRET=${secrets.env_secret} and the Slack token ${secrets.slack_bot}.`,
  },
]);

let sb: Sandbox;
let repo: string;
const servers: ModelServer[] = [];

const leaks = (text: string) =>
  Object.entries(secrets)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);

beforeAll(() => {
  sb = sandbox("coffer-secrets-");
  repo = sb.repo("shop", "git@github.com:acme/shop.git");
});
afterAll(() => {
  for (const s of servers) s.stop();
  sb.cleanup();
});

test("distill show: nothing secret in what the model would see", async () => {
  placeClaude(sb, transcript, { id: "9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", cwd: repo });
  const shown = await runAsync(sb, ["distill", "show", "9b8a7c6d", "--json"]);
  expect(shown.code).toBe(0);
  expect(leaks(shown.stdout)).toEqual([]);
  expect(shown.json().redactions).toBeGreaterThanOrEqual(20);
  expect(shown.json().text).toContain("[redacted]");
});

test("distill run against an OpenAI-compatible server: no secret in the request or the entries", async () => {
  const openai = modelServer([{ text: echoing }]);
  servers.push(openai);
  writeModelConfig(sb, "openai", openai.url);
  const r = await runAsync(sb, ["distill", "run", "9b8a7c6d"], { env });
  expect(r.code).toBe(0);
  expect(openai.requests.length).toBe(1);
  expect(leaks(openai.requests[0]!.raw)).toEqual([]);
  expect(openai.requests[0]!.raw).toContain("[redacted]");
  const files = entryFiles(sb);
  expect(files.length).toBe(2);
  for (const f of files) expect(leaks(f.text)).toEqual([]);
  expect(files.map((f) => f.text).join("\n")).toContain("[redacted]");
  expect(leaks(r.stdout + r.stderr)).toEqual([]);
  // the user is told how many secrets were scrubbed, and of which kinds
  expect(r.stdout + r.stderr).toMatch(
    /scrubbed \d+ secrets \([a-z0-9-]+(?:, [a-z0-9-]+)+\) before sending and writing/,
  );
});

test("observe --queue and inbox approve against an Anthropic-shaped server: no secret in the trace, the request or the entries", async () => {
  const id = "0c0c0c0c-1d1d-4e2e-8f3f-4a4a4a4a4a4a";
  const path = placeClaude(sb, transcript, { id, cwd: repo });
  writeQueue(sb, [{ transcript_path: path, host: "claude", session: id }]);
  const observed = await runAsync(sb, ["observe", "--queue", "--json"]);
  expect(observed.code).toBe(0);
  const stored = observed.json().results[0];
  expect(stored.outcome).toBe("stored");
  const traceText = readFileSync(join(sb.cofferHome, "inbox", `${stored.trace}.json`), "utf8");
  expect(leaks(traceText)).toEqual([]);
  expect(JSON.parse(traceText).redactions).toBeGreaterThanOrEqual(20);
  // the trace keeps what kinds those were, to tell the user at approve time
  const kinds = JSON.parse(traceText).scrubbed as { family: string; count: number }[];
  expect(kinds.reduce((n, f) => n + f.count, 0)).toBe(JSON.parse(traceText).redactions);

  const anthropic = modelServer([{ text: echoing }]);
  servers.push(anthropic);
  writeModelConfig(sb, "anthropic", anthropic.url);
  const approved = await runAsync(sb, ["inbox", "approve", stored.trace, "--yes"], { env });
  expect(approved.code).toBe(0);
  expect(anthropic.requests.length).toBe(1);
  expect(leaks(anthropic.requests[0]!.raw)).toEqual([]);
  for (const f of entryFiles(sb)) expect(leaks(f.text)).toEqual([]);
  expect(approved.stdout + approved.stderr).toMatch(
    /scrubbed \d+ secrets \([a-z0-9-]+(?:, [a-z0-9-]+)+\): replaced by \[redacted\] before sending and writing/,
  );
});

test("nothing under COFFER_HOME holds a secret: entries, index.db (+ WAL), ledger, audit, inbox, queue", () => {
  // make sure the index exists and has every entry
  expect(sb.run(["reindex"]).code).toBe(0);
  const files = allFiles(sb.cofferHome);
  expect(files.some(([p]) => p.endsWith("index.db"))).toBe(true);
  for (const [path, text] of files) expect({ path, leaks: leaks(text) }).toEqual({ path, leaks: [] });
  // recall over the index finds the scrubbed entries, not the secrets
  const recalled = sb.run(["recall", "vault", "--json"], { cwd: repo });
  expect(recalled.code).toBe(0);
  expect(leaks(recalled.stdout)).toEqual([]);
});
