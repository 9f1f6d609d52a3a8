/**
 * `coffer scan [--fix] [--json]` through the binary: secrets already in memory/ (a hand-edited
 * entry, a rules file) are reported by file and family; --fix redacts them in place, atomically,
 * and the index stops returning the old text.
 */

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../kit";

/** Processes on a shared 2-core machine: generous. */
const SLOW = 60_000;

const STRIPE = "sk_live_51HqZ7Rk2mVx9Lp4Tz8Wn3Jc6";
const PASSWORD = "Pg5Qw8Er2!x";

describe("coffer scan", () => {
  const sb = sandbox();
  afterAll(() => sb.cleanup());
  const entries = join(sb.cofferHome, "memory", "global", "entries");

  test(
    "a clean store: exit 0, nothing found",
    () => {
      expect(sb.run(["remember", "Deploys go through make release", "--scope", "global"]).code).toBe(0);
      const r = sb.run(["scan", "--json"]);
      expect(r.code).toBe(0);
      expect(r.json()).toMatchObject({ secrets: 0, findings: [] });
      expect(r.json().files).toBeGreaterThanOrEqual(1);
    },
    SLOW,
  );

  const file = join(entries, "01M8N8A8RP637X6AFMBCRAHAND.md");
  const original = [
    "---",
    "id: 01M8N8A8RP637X6AFMBCRAHAND",
    "kind: note",
    "title: Staging credentials",
    "tags: []",
    "actor: user",
    "source: cli",
    "created: 2026-11-30T03:34:58Z",
    "updated: 2026-11-30T03:34:58Z",
    "---",
    `The staging payments key is ${STRIPE} and the db uses`,
    `PGPASSWORD=${PASSWORD} psql -h staging-db -U app`,
    "",
  ].join("\n");

  test(
    "a hand-edited entry with two secrets: reported by file and family, exit 1, file untouched",
    () => {
      mkdirSync(entries, { recursive: true });
      writeFileSync(file, original);
      // a symlink under memory/ is never followed
      symlinkSync("/etc/hostname", join(entries, "01M8N8A8RP637X6AFMBCRALINK.md"));
      const r = sb.run(["scan"]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("global/entries/01M8N8A8RP637X6AFMBCRAHAND.md: 2 secrets (stripe, password)");
      expect(r.stderr).toContain("coffer scan --fix");
      expect(readFileSync(file, "utf8")).toBe(original);
      // the index has seen the hand-edited file
      expect(sb.run(["recall", "staging payments key", "--json"]).stdout).toContain("01M8N8A8RP637X6AFMBCRAHAND");
      const j = sb.run(["scan", "--json"]).json();
      expect(j.secrets).toBe(2);
      expect(j.findings).toEqual([
        {
          path: "global/entries/01M8N8A8RP637X6AFMBCRAHAND.md",
          found: [
            { family: "stripe", count: 1 },
            { family: "password", count: 1 },
          ],
          fixed: false,
        },
      ]);
    },
    SLOW,
  );

  test(
    "--fix redacts in place (atomically: no temp file left), keeps the rest byte for byte, audits without content",
    () => {
      const r = sb.run(["scan", "--fix"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("2 secrets (stripe, password) — redacted");
      const after = readFileSync(file, "utf8");
      expect(after).toBe(original.replace(STRIPE, "[redacted]").replace(PASSWORD, "[redacted]"));
      expect(readdirSync(entries).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      const audit = readFileSync(join(sb.cofferHome, "state", "audit.jsonl"), "utf8");
      expect(audit).toContain('"event":"scan.fix"');
      expect(audit).not.toContain(STRIPE);
      expect(audit).not.toContain(PASSWORD);
      // nothing left to find
      const again = sb.run(["scan", "--json"]);
      expect(again.code).toBe(0);
      expect(again.json().secrets).toBe(0);
    },
    SLOW,
  );

  test(
    "the index no longer holds the secret after --fix",
    () => {
      const r = sb.run(["recall", "staging payments key", "--json"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("01M8N8A8RP637X6AFMBCRAHAND");
      expect(r.stdout).not.toContain(STRIPE);
      const state = join(sb.cofferHome, "state");
      for (const name of readdirSync(state).filter((n) => n.startsWith("index.db")))
        expect({ name, leaked: readFileSync(join(state, name)).includes(Buffer.from(STRIPE)) }).toEqual({
          name,
          leaked: false,
        });
      expect(existsSync(file)).toBe(true);
    },
    SLOW,
  );
});

describe("a scrubbed value does not linger in the index", () => {
  const sb = sandbox();
  afterAll(() => sb.cleanup());

  test(
    "a value an older scrubber let into the index is gone, with no byte of it left in free pages, after the index drops it",
    () => {
      const secret = "Zq8vR2mK9xLw4Tn7Bc3Hd6FgQwErTyUi";
      // the entry first, then enough others that its row's page is not the one new rows go to
      expect(sb.run(["remember", "The staging deploy token lives in the vault", "--scope", "global"]).code).toBe(0);
      for (let i = 0; i < 30; i++) {
        const note = `Note ${i}: the release train leaves on Thursdays from branch r${i}`;
        expect(sb.run(["remember", note, "--scope", "global"]).code).toBe(0);
      }
      const state = join(sb.cofferHome, "state");
      const index = join(state, "index.db");
      // an index written by an older scrubber that did not recognise this value
      const db = new Database(index);
      db.run("UPDATE entries SET body = body || ? WHERE body LIKE '%staging deploy%'", [` (${secret})`]);
      db.close();
      const holds = (value: string) =>
        readdirSync(state)
          .filter((n) => n.startsWith("index.db"))
          .filter((n) => readFileSync(join(state, n)).includes(Buffer.from(value)));
      expect(holds(secret)).toEqual(["index.db"]);
      // the entry's file changes (a person edits it): its row is replaced, the old bytes must not stay behind
      const dir = join(sb.cofferHome, "memory", "global", "entries");
      const file = readdirSync(dir)
        .map((n) => join(dir, n))
        .find((f) => readFileSync(f, "utf8").includes("staging deploy"))!;
      writeFileSync(file, readFileSync(file, "utf8").replace("lives in the vault", "lives in the team vault"));
      expect(sb.run(["recall", "staging deploy", "--json"]).stdout).toContain("team vault");
      expect(holds(secret)).toEqual([]);

      // the full-text index's words of it (lower-cased by the tokenizer) go when the index is rebuilt
      const fts = new Database(index);
      fts.run("INSERT INTO entries_fts(rowid, scope, title, tags, body) VALUES(99999, 'x', 'old', '[]', ?)", [
        `the staging deploy token ${secret}`,
      ]);
      fts.close();
      expect(holds(secret.toLowerCase())).toEqual(["index.db"]);
      expect(sb.run(["reindex"]).code).toBe(0);
      expect(holds(secret.toLowerCase())).toEqual([]);
    },
    SLOW,
  );
});

describe("coffer scan counts distinct secrets", () => {
  const sb = sandbox();
  afterAll(() => sb.cleanup());

  test(
    "one key in an entry's title and again in its body is one secret, not two (issue 37)",
    () => {
      const entries = join(sb.cofferHome, "memory", "global", "entries");
      mkdirSync(entries, { recursive: true });
      const text = [
        "---",
        "id: 01M8N8A8RP637X6AFMBCRATWCE",
        "kind: note",
        `title: Stripe key ${STRIPE}`,
        "tags: []",
        "actor: user",
        "source: cli",
        "created: 2026-11-30T03:34:58Z",
        "updated: 2026-11-30T03:34:58Z",
        "---",
        `The staging payments key is ${STRIPE}.`,
        "",
      ].join("\n");
      writeFileSync(join(entries, "01M8N8A8RP637X6AFMBCRATWCE.md"), text);
      const r = sb.run(["scan"]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("global/entries/01M8N8A8RP637X6AFMBCRATWCE.md: 1 secret (stripe)");
      expect(r.stderr).toContain("Found 1 secret in 1 file");
      const j = sb.run(["scan", "--json"]).json();
      expect(j.secrets).toBe(1);
      expect(j.findings[0].found).toEqual([{ family: "stripe", count: 1 }]);
      // --fix still redacts both places
      expect(sb.run(["scan", "--fix"]).stdout).toContain("1 secret (stripe) — redacted");
      expect(readFileSync(join(entries, "01M8N8A8RP637X6AFMBCRATWCE.md"), "utf8")).not.toContain(STRIPE);
    },
    SLOW,
  );
});
