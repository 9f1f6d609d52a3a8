/**
 * Issue 36, item 3: model-written keywords were lowercased before they were scrubbed, so a keyword
 * `AKIAQ3EGRTZ5XN7PLWQR` was stored as `akiaq3egrtz5xn7plwqr`, which no rule recognises. Every
 * keyword is scrubbed as written, on every path (distillation, enrich, keywords on write), and one
 * that held a secret is dropped; a value the body gave away goes from the keywords too.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { parseInsights } from "../../src/distill/insights";
import { cleanKeywords, parseKeywords } from "../../src/distill/keywords";
import {
  entryFiles,
  type ModelServer,
  modelServer,
  placeClaude,
  runAsync,
  type Sandbox,
  sandbox,
  simpleClaudeSession,
  writeModelConfig,
} from "../kit";

const AKIA = "AKIAQ3EGRTZ5XN7PLWQR";
const GHP = "ghp_Zq8vR2mK9xLw4Tn7Bc3Hd6Fg1Js5Kp0Qa2W";
const env = { COFFER_TEST_KEY: "test-key-not-a-secret-123" };

/** No case of the value anywhere. */
const leaks = (text: string) => [AKIA, GHP].filter((v) => text.toLowerCase().includes(v.toLowerCase()));

describe("keywords are scrubbed before they are lowercased", () => {
  test("cleanKeywords drops a keyword that is, or holds, a secret; keeps the others lowercased", () => {
    expect(cleanKeywords([AKIA, "Cloud Storage", `token ${GHP}`, "S3 bucket"])).toEqual(["cloud storage", "s3 bucket"]);
  });

  test("enrich and keywords on write: the model's answer parsed", () => {
    const items = [{ title: "AWS deploys", body: "Deploys use the CI user", tags: [] }];
    expect(parseKeywords(JSON.stringify({ keywords: [[AKIA, "Deploy User"]] }), items)).toEqual([["deploy user"]]);
  });

  test("distillation: an insight's keywords come out of parsing as written, for the writer to scrub", () => {
    const [ins] = parseInsights(
      JSON.stringify([{ kind: "gotcha", title: "CI user", body: "The CI user deploys", keywords: [AKIA, "IAM"] }]),
    ).insights;
    expect(ins!.keywords).toEqual([AKIA, "IAM"]);
  });
});

describe("through the binary", () => {
  let sb: Sandbox;
  let repo: string;
  let server: ModelServer | undefined;
  beforeAll(() => {
    sb = sandbox("coffer-kw-scrub-");
    repo = sb.repo("shop", "git@github.com:acme/shop.git");
  });
  afterEach(() => server?.stop());
  afterAll(() => sb.cleanup());

  test("distill run: a secret keyword is not stored in any case, a value the body gave away neither", async () => {
    const insights = [
      {
        kind: "gotcha",
        title: "CI pushes with a bot token",
        body: `The release job sets GITHUB_TOKEN=${GHP} for pushes.`,
        keywords: [AKIA, GHP, "Release Bot"],
      },
    ];
    server = modelServer([{ text: JSON.stringify(insights) }]);
    writeModelConfig(sb, "openai", server.url);
    placeClaude(sb, simpleClaudeSession(), { id: "5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f", cwd: repo });
    const r = await runAsync(sb, ["distill", "run", "5d6e7f80"], { env });
    expect(r.code).toBe(0);
    const files = entryFiles(sb);
    expect(files.length).toBe(1);
    expect(leaks(files[0]!.text)).toEqual([]);
    expect(files[0]!.text).toContain("release bot");
  });

  test("enrich: a secret keyword is not stored in any case", async () => {
    expect(sb.run(["remember", "Deploys run as the CI user", "--scope", "global"]).code).toBe(0);
    server = modelServer([{ text: JSON.stringify({ keywords: [[AKIA, "Deploy User"]] }) }]);
    writeModelConfig(sb, "openai", server.url);
    const r = await runAsync(sb, ["enrich", "--json"], { env });
    expect(r.code).toBe(0);
    const text = entryFiles(sb)
      .map((f) => f.text)
      .join("\n");
    expect(leaks(text)).toEqual([]);
    expect(text).toContain("deploy user");
  });
});
