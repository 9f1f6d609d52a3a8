import { defineCommand } from "citty";
import { printHandoff } from "./_handoff";
import { withExamples } from "./_run";
import { jsonArg } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "resume", description: "Print this branch's handoff, with a freshness note" },
    args: { ...jsonArg },
    run({ args }) {
      printHandoff(args.json);
    },
  }),
  ["coffer resume", "coffer resume --json"],
);
