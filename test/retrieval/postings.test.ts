/**
 * A form in more entries than recall reads (`cap`) keeps only its count, or with `newest` the most
 * recently indexed of its entries: at 100,000 entries a query of words found everywhere ("error
 * the") found nothing before (search.ts rank reads its rarest term so). Checked here with a cap
 * of 2 on a small store: the real cap is 10,000 and past 40,000 entries.
 */
import { expect, test } from "bun:test";
import { analyzeQuery } from "../../src/retrieval/analysis/text";
import { postings } from "../../src/retrieval/match";
import { dbOf } from "../../src/store/db";
import { remember } from "../../src/store/entries";
import { activeScopes, closeStore, openStore } from "../../src/store/store";
import { inProcessHome } from "../kit";

const { repo } = inProcessHome("coffer-postings-");

test("a form too common to read keeps nothing, or its newest entries when asked", () => {
  const store = openStore({ cwd: repo, notice: () => {} });
  try {
    for (const n of ["first", "second", "third", "fourth"])
      remember(store, { text: `The ${n} gateway timeout was logged`, actor: "user", source: "cli" });
    remember(store, { text: "Nothing to do with the others", actor: "user", source: "cli" });
    const scopes = activeScopes(store);
    const groups = analyzeQuery("gateway", "recall");
    const rowids = (
      dbOf(store).query("SELECT rowid FROM entries WHERE body LIKE '%gateway%'").all() as { rowid: number }[]
    )
      .map((r) => r.rowid)
      .sort((a, b) => b - a);
    expect(rowids).toHaveLength(4);

    const all = postings(store, groups, scopes, { cap: 10 })[0]!.forms[0]!;
    expect(all.df).toBe(4);
    expect([...all.hits].sort((a, b) => b - a)).toEqual(rowids);

    const none = postings(store, groups, scopes, { cap: 2 })[0]!.forms[0]!;
    expect(none.df).toBe(3); // counted up to cap + 1
    expect(none.hits).toEqual([]);

    const newest = postings(store, groups, scopes, { cap: 2, newest: 2 })[0]!.forms[0]!;
    expect(newest.df).toBe(3);
    expect(newest.hits).toEqual(rowids.slice(0, 2));
    // Their fields are read for them alone (the form is in every title here).
    expect([...newest.field.keys()].sort((a, b) => b - a)).toEqual(rowids.slice(0, 2));
    expect([...newest.field.values()]).toEqual(["title", "title"]);
    expect([...all.field.keys()]).toHaveLength(4);
  } finally {
    closeStore(store);
  }
});
