import { defineCommand } from "citty";
import { forget } from "../store/entries";
import { withExamples } from "./_run";
import { cliStore, consola, jsonArg, printJson } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "forget", description: "Delete an entry" },
    args: { id: { type: "positional", description: "Entry id (or a unique prefix)", required: true }, ...jsonArg },
    run({ args }) {
      const res = forget(cliStore(), args.id, "user");
      if (args.json) return printJson(res);
      consola.success(`Forgot ${res.id}`);
    },
  }),
  ["coffer forget 01JD3K5Z8Q2WXYZ123ABCDEFGH"],
);
