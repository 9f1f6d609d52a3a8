import { defineCommand } from "citty";
import { READ_MODES } from "../config/config";
import { didYouMean } from "../lib/did-you-mean";
import { usageError } from "../lib/errors";
import { setConfigValue } from "./_config";
import { withExamples } from "./_run";
import { consola } from "./_shared";

const EXPLAIN: Record<string, string> = {
  startup: "rules + memory cards at session start only",
  auto: "session start, then only new memory on each prompt (delta)",
  always: "session start, then every routed memory on every prompt",
  manual: "the rules bundle at session start (no memory cards), nothing after; agents recall through MCP",
  off: "nothing injected, not even at session start",
};

export default withExamples(
  defineCommand({
    meta: { name: "set-read", description: "When hooks inject memory: startup, auto, always, manual, off" },
    args: { mode: { type: "positional", description: READ_MODES.join("|"), required: true } },
    run({ args }) {
      if (!(READ_MODES as readonly string[]).includes(args.mode)) {
        const guess = didYouMean(args.mode, READ_MODES);
        throw usageError(
          `unknown read mode "${args.mode}" (allowed: ${READ_MODES.join(", ")})`,
          guess ? `Did you mean \`coffer set-read ${guess}\`?` : undefined,
        );
      }
      setConfigValue("hook.read", args.mode);
      consola.success(`read mode: ${args.mode} — ${EXPLAIN[args.mode]}`);
    },
  }),
  ["coffer set-read auto", "coffer set-read startup"],
);
