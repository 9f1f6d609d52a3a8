/**
 * Rules go through the scrubber on the way out (issue 36 item 9): a hand-edited personal rules.md,
 * a team's committed `.coffer/rules.md` or a global one holding a secret is injected, shown and
 * served with the secret as `[redacted]`, as the same secret in an entry is. The file itself is
 * left as it is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  claudeStart,
  contextOf,
  hook,
  projectId,
  type Sandbox,
  type Served,
  sandbox,
  startServe,
  writeRules,
} from "../kit";

const GITHUB = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`;
const STRIPE = `sk_live_${"51HqLyjWDarjtT1zdp7dc".padEnd(24, "x")}`;
const AWS = "AKIAQ3EGRTZ5XN7PLWQR";
const SECRETS = [GITHUB, STRIPE, AWS];

let sb: Sandbox;
let repo: string;

beforeAll(() => {
  sb = sandbox("coffer-rules-scrub-");
  repo = sb.repo("shop");
  writeRules(sb, projectId(repo), `- Deploy with STRIPE_KEY=${STRIPE}\n- Keep commits small\n`);
  writeRules(sb, "global", `- The CI key is ${AWS}, rotate it monthly\n`);
  mkdirSync(join(repo, ".coffer"), { recursive: true });
  writeFileSync(join(repo, ".coffer", "rules.md"), `- Push with https://x:${GITHUB}@github.com/acme/shop\n`);
});
afterAll(() => sb.cleanup());

const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

describe("rules are scrubbed on the way out (issue 36 item 9)", () => {
  test("session start: every lane's secret is [redacted], the rest of the rule stays; the files are untouched", () => {
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("s1", repo)));
    expect(ctx).toContain("## Project\n- Deploy with STRIPE_KEY=[redacted]\n- Keep commits small");
    expect(ctx).toContain("## Team (");
    expect(ctx).toContain("The CI key is [redacted], rotate it monthly");
    expect(leaks(ctx)).toEqual([]);
    expect(readFileSync(join(repo, ".coffer", "rules.md"), "utf8")).toContain(GITHUB);
    // Again (the scrubbed rules are kept per content): the same text, still scrubbed.
    expect(contextOf(hook(sb, "claude", "session-start", claudeStart("s2", repo)))).toBe(ctx);
  });

  test("a subagent's rules prefix, and a rules file changed since", () => {
    const sub = contextOf(
      hook(sb, "claude", "subagent-start", {
        session_id: "s1",
        cwd: repo,
        hook_event_name: "SubagentStart",
        agent_id: "a1",
        agent_type: "general-purpose",
      }),
    );
    expect(sub).toContain("STRIPE_KEY=[redacted]");
    expect(leaks(sub)).toEqual([]);
    writeRules(sb, projectId(repo), `- Deploy with STRIPE_KEY=${STRIPE}\n- Sign with ${GITHUB}\n`);
    const ctx = contextOf(hook(sb, "claude", "session-start", claudeStart("s3", repo)));
    expect(ctx).toContain("- Sign with [redacted]");
    expect(leaks(ctx)).toEqual([]);
  });

  test("coffer rules show (text and --json)", () => {
    const text = sb.run(["rules", "show"], { cwd: repo });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("STRIPE_KEY=[redacted]");
    expect(leaks(text.stdout)).toEqual([]);
    const json = sb.run(["rules", "show", "--json"], { cwd: repo });
    expect(json.json().rules.length).toBe(3);
    expect(leaks(json.stdout)).toEqual([]);
  });

  describe("coffer serve", () => {
    let served: Served;
    beforeAll(async () => {
      served = await startServe(sb, repo, ["--no-worker"]);
    });
    afterAll(async () => {
      await served?.stop();
    });

    test("GET /api/v1/rules and the session-start context it serves", async () => {
      const rules = await (await served.api(`/api/v1/rules?cwd=${encodeURIComponent(repo)}`)).text();
      expect(rules).toContain("[redacted]");
      expect(leaks(rules)).toEqual([]);
      const start = await (
        await served.api(`/api/v1/agents/claude/session-context?cwd=${encodeURIComponent(repo)}`)
      ).json();
      expect(start.additional_context).toContain("STRIPE_KEY=[redacted]");
      expect(leaks(start.additional_context)).toEqual([]);
    });

    test("the web UI's rules page: the text to edit and each host's session-start bundle", async () => {
      // Logged in as the page does: the one-time link's POST gives the cookie and the page's key.
      let login: RegExpExecArray | null = null;
      for (let i = 0; i < 100 && !login; i++) {
        login = /Web UI: (http:\/\/\S+\/login\?code=\S+)/.exec(served.stdout());
        if (!login) await Bun.sleep(20);
      }
      const res = await fetch(login![1]!, { method: "POST", headers: { origin: served.url } });
      const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
      const { key } = (await res.json()) as { key: string };
      const page = await fetch(
        `${served.url}/api/v1/ui/rules?scope=${projectId(repo)}&cwd=${encodeURIComponent(repo)}`,
        { headers: { cookie, "x-coffer-key": key } },
      );
      expect(page.status).toBe(200);
      const body = (await page.json()) as { text: string; bundles: { text: string }[] };
      expect(body.text).toContain("STRIPE_KEY=[redacted]");
      expect(body.bundles.length).toBeGreaterThan(0);
      expect(leaks(JSON.stringify(body))).toEqual([]);
    });
  });
});
