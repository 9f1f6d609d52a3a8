import { defineCommand } from "citty";
import { writeOut } from "../lib/output";
import { listTrash, projectMeta, TRASH_DAYS } from "../store";
import { withExamples } from "./_run";
import { entryLines, jsonArg, notice, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: {
      name: "trash",
      description: "List forgotten entries (kept 30 days; `coffer restore <id>` brings one back)",
    },
    args: { ...jsonArg },
    run({ args }) {
      const items = listTrash().map((t) => ({ ...t, scope_label: projectMeta(t.scope).label }));
      if (args.json) return printJson({ keep_days: TRASH_DAYS, items });
      if (!items.length) return notice("The trash is empty.");
      const lines = entryLines(
        items.map((t) => ({
          id: t.id,
          date: t.deleted.slice(0, 10),
          scope: t.scope_label,
          kind: t.kind,
          // promote's personal copy: the team lane holds the entry, restore refuses it
          title: t.in_team ? `(promoted: in the team lane now) ${t.title}` : t.title,
        })),
      );
      writeOut(`${lines.join("\n")}\n`);
      notice(`Forgotten entries stay ${TRASH_DAYS} days; \`coffer restore <id>\` brings one back.`);
    },
  }),
  ["coffer trash", "coffer trash --json"],
);
