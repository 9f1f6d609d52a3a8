/**
 * index.db is a cache of memory/: no process fsyncs it (store/db.ts `noSync`). The kill -9 suite
 * (test/reliability/fault-crash.test.ts) shows a process that dies mid-write still loses nothing.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { dbOf } from "../../src/store/db";
import { remember } from "../../src/store/entries";
import { closeStore, openStore } from "../../src/store/store";
import { inProcessHome } from "../kit";

const { root, repo } = inProcessHome("coffer-index-sync-");

const pragma = (store: ReturnType<typeof openStore>, name: string) =>
  Object.values(dbOf(store).query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];

test("every store, a command's or a hook's, writes index.db without fsync, in WAL mode", () => {
  for (const [i, opts] of [{}, { freshness: "shallow" as const, rebuildAll: false }].entries()) {
    const store = openStore({ cwd: repo, notice: () => {}, ...opts });
    expect(pragma(store, "synchronous")).toBe(0); // OFF
    expect(pragma(store, "journal_mode")).toBe("wal");
    remember(store, { text: `Deploys go through make release, step ${i}`, actor: "user", source: "cli" });
    closeStore(store);
  }
  // A clean close checkpoints: the write is in index.db itself, no WAL left behind.
  expect(existsSync(join(root, "coffer", "state", "index.db-wal"))).toBe(false);
  const again = openStore({ cwd: repo, freshness: "none", notice: () => {} });
  expect((dbOf(again).query("SELECT count(*) AS n FROM entries").get() as { n: number }).n).toBe(2);
  closeStore(again);
});
