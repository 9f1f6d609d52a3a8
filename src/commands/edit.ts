import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isTerminal } from "../lib/output";
import { paths } from "../lib/paths";
import { KINDS, readMemoryFile, replaceEntryText, requireEntry } from "../store";
import { withExamples } from "./_run";
import { cliStore, consola, notice } from "./_shared";

/**
 * What is wrong with an edited entry file, before the store sees it: the store's parser forgives
 * (an unknown kind becomes `note`), which is right for files on disk but silently changes what
 * the user just typed.
 */
export function editProblem(text: string): string | undefined {
  if (!/^---\r?\n/.test(text)) return "the frontmatter is gone: the file must start with a line `---`";
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return "the frontmatter is not closed: add a line `---` after the last field";
  let meta: unknown;
  try {
    meta = Bun.YAML.parse(m[1]!);
  } catch (err) {
    return `the frontmatter is not valid YAML: ${(err as Error).message.split("\n")[0]}`;
  }
  if (!meta || typeof meta !== "object" || Array.isArray(meta)) return "the frontmatter must be `key: value` lines";
  const kind = (meta as Record<string, unknown>).kind;
  if (kind !== undefined && !(KINDS as readonly unknown[]).includes(kind))
    return `unknown kind ${JSON.stringify(kind)} (allowed: ${KINDS.join(", ")})`;
  for (const key of ["tags", "applies_to"]) {
    const v = (meta as Record<string, unknown>)[key];
    if (v !== undefined && v !== null && !Array.isArray(v) && typeof v !== "string")
      return `${key} must be a list, e.g. ${key}: [a, b]`;
  }
  return undefined;
}

/** The editor command, and the variable it came from (none: the `vi` default). */
function editorCommand(): { editor: string; from?: "VISUAL" | "EDITOR" } {
  if (process.env.VISUAL) return { editor: process.env.VISUAL, from: "VISUAL" };
  if (process.env.EDITOR) return { editor: process.env.EDITOR, from: "EDITOR" };
  return { editor: "vi" };
}

/**
 * One line when the editor is not installed, instead of the shell's `not found` and an exit code
 * (issue 37). Only a plain first word is looked up: quotes, assignments and other shell syntax are
 * left to sh.
 */
function editorNotFound(again: string): string | undefined {
  const { editor, from } = editorCommand();
  const first = editor.trim().split(/\s+/)[0] ?? "";
  if (!/^[\w./+-]+$/.test(first)) return undefined;
  if (first.includes("/") ? existsSync(first) : Bun.which(first)) return undefined;
  return from
    ? `the editor ${JSON.stringify(first)} ($${from}) was not found: set ${from} to an installed editor, e.g. ${from}=nano ${again}`
    : `no editor: vi is not installed and EDITOR is not set; set it to an installed editor, e.g. EDITOR=nano ${again}`;
}

function runEditor(file: string): number | null {
  const { editor } = editorCommand();
  return Bun.spawnSync(["sh", "-c", `${editor} "$1"`, "coffer-edit", file], {
    stdio: ["inherit", "inherit", "inherit"],
  }).exitCode;
}

export default withExamples(
  defineCommand({
    meta: { name: "edit", description: "Edit an entry in $EDITOR" },
    args: {
      id: {
        type: "positional",
        description: "Entry id as lists show it (its last 8 characters), or the whole id",
        required: true,
      },
    },
    async run({ args }) {
      const store = cliStore();
      const hit = requireEntry(store, args.id);
      const missing = editorNotFound(`coffer edit ${handle(hit.entry.id)}`);
      if (missing) throw new CofferError(missing);
      // Edit a copy (the draft): a broken edit never reaches the entry, and is never thrown away.
      const dir = join(paths.state(), "edit");
      mkdirSync(dir, { recursive: true });
      const draft = join(dir, `${hit.entry.id}.md`);
      if (existsSync(draft)) notice(`Continuing your unsaved edit from ${draft} (delete it to start over).`);
      else writeFileSync(draft, readMemoryFile(hit.file).text);
      const interactive = Boolean(process.stdin.isTTY && isTerminal(2));
      for (;;) {
        const code = runEditor(draft);
        if (code !== 0) {
          rmSync(draft, { force: true });
          throw new CofferError(`the editor exited with ${code}; the entry was not changed`);
        }
        const text = readFileSync(draft, "utf8");
        let problem = editProblem(text);
        if (!problem) {
          try {
            const entry = replaceEntryText(store, hit, text, "user");
            rmSync(draft, { force: true });
            if (entry === hit.entry) notice("No changes.");
            else consola.success(`Saved ${handle(entry.id)}`);
            return;
          } catch (err) {
            if (!(err instanceof CofferError)) throw err;
            problem = err.message;
          }
        }
        consola.error(`Not saved: ${problem}`);
        if (interactive) {
          const again = await consola.prompt("Reopen the editor with your text to fix it?", {
            type: "confirm",
            initial: true,
          });
          if (again === true) continue;
        }
        throw new CofferError(
          `the entry was not changed; your text is kept in ${draft}`,
          1,
          `Run \`coffer edit ${handle(hit.entry.id)}\` again to continue from it (delete the file to start over).`,
        );
      }
    },
  }),
  ["coffer edit 3ABCDEFG", "EDITOR=nano coffer edit 3ABCDEFG"],
);
