/**
 * `coffer enrich` when the model's answer cannot be used (issue 25): it said "Keywords written for
 * 0 of 2 entries" and exited 0. Now it says what was wrong with the answer, like `distill`, and
 * exits 1; a usable answer still writes keywords.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { type ModelServer, modelServer, runAsync, type Sandbox, sandbox, writeModelConfig } from "../kit";

const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };
let sb: Sandbox;
let server: ModelServer | undefined;

beforeAll(() => {
  sb = sandbox("coffer-enrich-");
  for (const text of ["We ship with make release", "Logs rotate daily at midnight"])
    expect(sb.run(["remember", text, "--scope", "global"]).code).toBe(0);
});
afterEach(() => server?.stop());
afterAll(() => sb.cleanup());

test("an answer that is not keyword lists: a message like distill's, exit 1", async () => {
  server = modelServer([{ text: "I cannot help with that.", usage: { input: 300, output: 7 } }]);
  writeModelConfig(sb, "openai", server.url);
  const r = await runAsync(sb, ["enrich"], { env });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/the model's answer/);
  expect(r.stderr).toContain("I cannot help");
  expect(r.stdout + r.stderr).not.toMatch(/Keywords written for 0/);
});

test("valid JSON with no usable keyword for any entry: exit 1, saying so", async () => {
  server = modelServer([{ text: '{"keywords": [[], ["!!!"]]}' }]);
  writeModelConfig(sb, "openai", server.url);
  const r = await runAsync(sb, ["enrich", "--json"], { env });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/no usable keywords/);
});

test("a usable answer writes keywords and exits 0", async () => {
  server = modelServer([{ text: '{"keywords": [["publish", "deploy"], ["log rotation"]]}' }]);
  writeModelConfig(sb, "openai", server.url);
  const r = await runAsync(sb, ["enrich", "--json"], { env });
  expect(r.code).toBe(0);
  expect(r.json()).toMatchObject({ candidates: 2, enriched: 2 });
});
