/**
 * Issue 36, items 3 and 5 on the import path: an engram topic key holding a token was lowercased
 * into a tag before the engine scrubbed it (no rule knows `akiaq3…`), and the engine scrubbed each
 * field alone, so a title repeating the value the body gave away kept it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type Sandbox, sandbox, writeFile } from "../kit";
import { allText, storedEntries } from "./helpers";

const AKIA = "AKIAQ3EGRTZ5XN7PLWQR";
const V = "zajmEjyCrhFdm1gQXoZD6r8WKLubC-B2";

let sb: Sandbox;
beforeAll(() => {
  sb = sandbox("coffer-import-scrub-");
});
afterAll(() => sb.cleanup());

test("engram: a token in a topic key is not stored in any case; a title repeating the body's secret loses it", () => {
  const file = join(sb.root, "engram-export.json");
  const observation = (id: number, o: Record<string, unknown>) => ({
    id,
    session_id: "s",
    type: "config",
    project: "x",
    scope: "personal",
    revision_count: 1,
    duplicate_count: 1,
    created_at: "2026-01-10 09:30:00",
    updated_at: "2026-01-10 09:30:00",
    ...o,
  });
  writeFile(
    file,
    JSON.stringify({
      version: "0.1.0",
      exported_at: "2026-02-01 12:00:00",
      sessions: [{ id: "s", project: "x", directory: sb.root, started_at: "2026-01-10 09:00:00" }],
      observations: [
        observation(1, { title: "CI user", content: "The CI user deploys", topic_key: `aws/${AKIA}` }),
        observation(2, { title: `Pepipost ${V}`, content: `pepipost token = '${V}'` }),
      ],
      prompts: [],
    }),
  );
  const r = sb.run(["import", "engram", file, "--json"]);
  expect(r.code).toBe(0);
  expect(r.json().created).toBe(2);
  const text = allText(join(sb.cofferHome, "memory"));
  expect(text.toLowerCase()).not.toContain(AKIA.toLowerCase());
  expect(text).not.toContain(V);
  const titles = storedEntries(sb.cofferHome).map((e) => e.meta.title);
  expect(titles).toContain("Pepipost [redacted]");
});
