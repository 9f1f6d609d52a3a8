import { defineCommand } from "citty";
import { PROOF_MODES } from "../config/config";
import { didYouMean } from "../lib/did-you-mean";
import { usageError } from "../lib/errors";
import { setConfigValue } from "./_config";
import { withExamples } from "./_run";
import { consola } from "./_shared";

export default withExamples(
  defineCommand({
    meta: { name: "set-proof", description: "Append a one-line proof of what the hook loaded: off, compact" },
    args: { mode: { type: "positional", description: PROOF_MODES.join("|"), required: true } },
    run({ args }) {
      if (!(PROOF_MODES as readonly string[]).includes(args.mode)) {
        const guess = didYouMean(args.mode, PROOF_MODES);
        throw usageError(
          `unknown proof mode "${args.mode}" (allowed: ${PROOF_MODES.join(", ")})`,
          guess ? `Did you mean \`coffer set-proof ${guess}\`?` : undefined,
        );
      }
      setConfigValue("hook.proof", args.mode);
      consola.success(
        args.mode === "compact"
          ? "proof: compact — each eligible turn ends with one `Coffer proof:` line"
          : "proof: off",
      );
    },
  }),
  ["coffer set-proof compact", "coffer set-proof off"],
);
