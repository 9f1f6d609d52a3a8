import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { paths } from "../lib/paths";
import { replaceEntryText, requireEntry } from "../store/store";
import { withExamples } from "./_run";
import { cliStore, consola } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "edit", description: "Edit an entry in $EDITOR" },
    args: { id: { type: "positional", description: "Entry id (or a unique prefix)", required: true } },
    run({ args }) {
      const store = cliStore();
      const hit = requireEntry(store, args.id);
      // Edit a copy: a broken edit is rejected and the entry stays as it was.
      const dir = join(paths.state(), "edit");
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `${hit.entry.id}.md`);
      writeFileSync(tmp, readFileSync(hit.file, "utf8"));
      try {
        const editor = process.env.VISUAL || process.env.EDITOR || "vi";
        const proc = Bun.spawnSync(["sh", "-c", `${editor} "$1"`, "coffer-edit", tmp], {
          stdio: ["inherit", "inherit", "inherit"],
        });
        if (proc.exitCode !== 0)
          throw new CofferError(`${editor} exited with ${proc.exitCode}; the entry was not changed`);
        const entry = replaceEntryText(store, hit, readFileSync(tmp, "utf8"), "user");
        if (entry === hit.entry) consola.info("No changes.");
        else consola.success(`Saved ${entry.id}`);
      } finally {
        rmSync(tmp, { force: true });
      }
    },
  }),
  ["coffer edit 01JD3K5Z8Q2WXYZ123ABCDEFGH", "EDITOR=nano coffer edit 01JD3K5Z"],
);
