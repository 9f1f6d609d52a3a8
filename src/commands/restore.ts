import { defineCommand } from "citty";
import { CofferError, notFoundError } from "../lib/errors";
import { handle, namesId } from "../lib/handle";
import { listTrash, projectMeta, restoreEntry } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson } from "./_shared";

/** The trashed id an id, its handle or 4+ of its first or last characters name. */
function trashedId(raw: string): string {
  const want = raw.trim().toUpperCase();
  const items = listTrash();
  const exact = items.find((t) => t.id.toUpperCase() === want);
  if (exact) return exact.id;
  const hits = items.filter((t) => namesId(t.id, want));
  if (!hits.length) throw notFoundError(`nothing in the trash with id "${raw}"`, "List it with `coffer trash`.");
  if (hits.length > 1)
    throw new CofferError(
      `ambiguous: ${hits.length} trashed entries match "${raw}"; give more characters`,
      1,
      hits
        .slice(0, 5)
        .map((t) => `${t.id}  ${t.title}`)
        .join("\n  "),
      "ambiguous",
    );
  return hits[0]!.id;
}

export default withExamples(
  defineCommand({
    meta: { name: "restore", description: "Bring a forgotten entry back from the trash" },
    args: {
      id: { type: "positional", description: "Entry id as `coffer trash` shows it, or the whole id", required: true },
      ...jsonArg,
    },
    run({ args }) {
      const store = cliStore({ freshness: "none" });
      const res = restoreEntry(store, trashedId(args.id), "user");
      const label = projectMeta(res.scope).label;
      if (args.json) return printJson({ ...res, status: "restored", scope_label: label });
      consola.success(
        `Restored ${handle(res.id)} (${res.scope === "global" || label.startsWith("team ") ? label : `project ${label}`})`,
      );
      if (res.note) consola.warn(res.note);
    },
  }),
  ["coffer restore 3ABCDEFG        # the id `coffer trash` shows", "coffer restore 01JD3K5Z8Q2WXYZ123ABCDEFG"],
);
