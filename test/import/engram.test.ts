import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Sandbox, sandbox, writeFile } from "../kit";
import { allText, entriesOf, storedEntries } from "./helpers";

const SECRET = "sk-ant-api03-Qw8eRt5yUi2oPa7sDf4gHj1kLz9xCv6bNm3";

/** The shape `engram export` writes (its store's ExportData). */
function engramExport(api: string, gone: string) {
  return {
    version: "0.1.0",
    exported_at: "2026-02-01 12:00:00",
    sessions: [
      {
        id: "sess-api",
        project: "api",
        directory: api,
        started_at: "2026-01-10 09:00:00",
        ended_at: "2026-01-10 11:00:00",
        summary: "Moved auth to JWT middleware; tests green.",
      },
      { id: "sess-old", project: "legacy", directory: gone, started_at: "2025-01-10 09:00:00" },
    ],
    observations: [
      {
        id: 1,
        session_id: "sess-api",
        type: "architecture",
        title: "JWT auth middleware",
        content:
          "**What**: auth moved to a JWT middleware\n**Why**: one place to check tokens<private> (the old one lived in vault/prod-auth)</private>",
        project: "api",
        scope: "project",
        topic_key: "architecture/auth-model",
        revision_count: 2,
        duplicate_count: 1,
        created_at: "2026-01-10 09:30:00",
        updated_at: "2026-01-11 10:00:00",
      },
      {
        id: 2,
        session_id: "sess-api",
        type: "bugfix",
        title: "Expired tokens accepted",
        content: `Clock skew check was inverted. Test key: ANTHROPIC_API_KEY=${SECRET}`,
        project: "api",
        scope: "project",
        revision_count: 1,
        duplicate_count: 1,
        created_at: "2026-01-10 10:00:00",
        updated_at: "2026-01-10 10:00:00",
      },
      {
        id: 3,
        session_id: "sess-api",
        type: "preference",
        title: "Answer style",
        content: "The user prefers short answers with code first.",
        project: "api",
        scope: "personal",
        revision_count: 1,
        duplicate_count: 1,
        created_at: "2026-01-10 10:30:00",
        updated_at: "2026-01-10 10:30:00",
      },
      {
        id: 4,
        session_id: "sess-api",
        type: "discovery",
        title: "Deleted one",
        content: "This was deleted in engram.",
        project: "api",
        scope: "project",
        revision_count: 1,
        duplicate_count: 1,
        created_at: "2026-01-10 10:40:00",
        updated_at: "2026-01-10 10:40:00",
        deleted_at: "2026-01-12 00:00:00",
      },
      {
        id: 5,
        session_id: "sess-old",
        type: "decision",
        title: "Legacy DB",
        content: "Legacy service stays on Postgres 12.",
        project: "legacy",
        scope: "project",
        revision_count: 1,
        duplicate_count: 1,
        created_at: "2025-01-10 10:00:00",
        updated_at: "2025-01-10 10:00:00",
      },
    ],
    prompts: [
      { id: 1, session_id: "sess-api", content: "add jwt auth", project: "api", created_at: "2026-01-10 09:00:00" },
    ],
  };
}

describe("coffer import engram", () => {
  let sb: Sandbox;
  let file: string;
  let api: string;

  beforeAll(() => {
    sb = sandbox("coffer-import-engram-");
    api = sb.repo("api", "https://github.com/acme/api.git");
    file = join(sb.root, "engram-export.json");
    writeFile(file, JSON.stringify(engramExport(api, join(sb.root, "work", "legacy")), null, 2));
  });
  afterAll(() => sb.cleanup());

  test("imports observations and session summaries; personal scope goes global; deleted ones stay out", () => {
    const dry = sb.run(["import", "engram", file, "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(dry.json().created).toBe(4);
    expect(storedEntries(sb.cofferHome)).toHaveLength(0);

    const r = sb.run(["import", "engram", file, "--json"]);
    expect(r.code).toBe(0);
    const rep = r.json();
    expect(rep.created).toBe(4);
    expect(rep.skipped.map((s: any) => s.reason).join()).toContain('project "legacy"');

    const apiEntries = entriesOf(sb.cofferHome, "api");
    expect(apiEntries).toHaveLength(3);
    const jwt = apiEntries.find((e) =>
      /^engram:[0-9a-f]{12}:observation:1:[0-9a-f]{12}$/.test(String(e.meta.imported_from)),
    )!;
    expect(jwt.meta.kind).toBe("decision");
    expect(jwt.meta.title).toBe("JWT auth middleware");
    expect(jwt.meta.tags).toEqual(["engram", "architecture", "architecture/auth-model"]);
    expect(jwt.meta.created).toBe("2026-01-10T09:30:00Z");
    expect(jwt.meta.updated).toBe("2026-01-11T10:00:00Z");
    expect(jwt.meta.actor).toBe("import:engram");
    expect(jwt.body).toContain("**Why**: one place to check tokens");
    expect(jwt.body).not.toContain("vault/prod-auth"); // <private> spans are dropped
    expect(
      apiEntries.find((e) => /^engram:[0-9a-f]{12}:observation:2:[0-9a-f]{12}$/.test(String(e.meta.imported_from)))!
        .meta.kind,
    ).toBe("gotcha");
    expect(
      apiEntries.find((e) => /^engram:[0-9a-f]{12}:session:sess-api:[0-9a-f]{12}$/.test(String(e.meta.imported_from)))!
        .body,
    ).toContain("JWT middleware");
    const global = entriesOf(sb.cofferHome, "global");
    expect(global).toHaveLength(1);
    expect(global[0]!.meta.kind).toBe("preference");
    expect(allText(sb.cofferHome)).not.toContain(SECRET);
    expect(allText(sb.cofferHome)).not.toContain("This was deleted in engram");
    expect(allText(join(sb.cofferHome, "memory"))).not.toContain("add jwt auth");

    const again = sb.run(["import", "engram", file, "--json"]).json();
    expect(again.created).toBe(0);
    expect(again.already).toBe(4);

    const mapped = sb.run(["import", "engram", file, "--project", `legacy=${api}`, "--json"]).json();
    expect(mapped.created).toBe(1);
    expect(entriesOf(sb.cofferHome, "api")).toHaveLength(4);

    const u = sb.run(["import", "--undo", rep.import_id]);
    expect(u.code).toBe(0);
    expect(
      storedEntries(sb.cofferHome).map((e) =>
        String(e.meta.imported_from).replace(/:[0-9a-f]{12}:(.*):[0-9a-f]{12}$/, ":$1"),
      ),
    ).toEqual(["engram:observation:5"]);
  });

  test("a file that is not an engram export is a clear error", () => {
    const bad = join(sb.root, "bad.json");
    writeFile(bad, JSON.stringify({ observations: [{ title: "no id" }] }));
    const r = sb.run(["import", "engram", bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not an engram export");
    const notJson = join(sb.root, "bad.txt");
    writeFile(notJson, "hello");
    expect(sb.run(["import", "engram", notJson]).stderr).toContain("as JSON");
  });

  test("a file that is not there is said as such, exit 1, never a raw ENOENT (issue 37)", () => {
    const missing = join(sb.root, "missing.json");
    for (const source of ["engram", "coffer"]) {
      const r = sb.run(["import", source, missing]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${missing} does not exist`);
      expect(r.stderr).not.toContain("ENOENT");
    }
  });
});

describe("folding into an entry that was already there", () => {
  test("the existing entry's date moves forward; undo gives it back", () => {
    const sb = sandbox("coffer-import-fold-");
    try {
      const api = sb.repo("api", "https://github.com/acme/api.git");
      const file = join(sb.root, "engram-export.json");
      writeFile(file, JSON.stringify(engramExport(api, join(sb.root, "work", "legacy")), null, 2));
      // The user already wrote the same memory (different case and punctuation) long ago.
      expect(
        sb.run(["remember", "**what**: Auth moved to a JWT middleware. **why**: one place to check tokens!"], {
          cwd: api,
        }).code,
      ).toBe(0);
      const mine = storedEntries(sb.cofferHome)[0]!;
      const old = mine.text.replace(/^(created|updated): .*$/gm, "$1: 2020-01-01T00:00:00Z");
      writeFile(join(sb.cofferHome, "memory", "projects", mine.scope, "entries", `${mine.id}.md`), old);

      const r = sb.run(["import", "engram", file, "--json"]).json();
      expect(r.merged).toBe(1);
      expect(r.created).toBe(3);
      const folded = storedEntries(sb.cofferHome).find((e) => e.id === mine.id)!;
      expect(folded.meta.updated).toBe("2026-01-11T10:00:00Z");
      expect(folded.meta.created).toBe("2020-01-01T00:00:00Z");
      expect(folded.body).toBe(mine.body);

      expect(sb.run(["import", "--undo", r.import_id]).code).toBe(0);
      const after = storedEntries(sb.cofferHome);
      expect(after).toHaveLength(1);
      expect(after[0]!.text).toBe(old);
    } finally {
      sb.cleanup();
    }
  });
});
