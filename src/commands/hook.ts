import { defineCommand } from "citty";
import { HOOK_EVENTS } from "../hosts/hook";
import { HOSTS } from "../lib/hosts";
import { withExamples } from "./_run";

/**
 * Help text only: `coffer hook ...` never reaches citty. src/cli.ts sends it straight to
 * src/hooks/entry.ts (`runHookCli`), which reads the host's JSON on stdin and always exits 0.
 */
export default withExamples(
  defineCommand({
    meta: {
      name: "hook",
      description: "Hook entry point the agents call (reads the host's JSON on stdin, always exits 0)",
    },
    args: {
      event: {
        type: "positional",
        description: HOOK_EVENTS.join(" | "),
        required: true,
      },
      agent: { type: "string", description: HOSTS.join(" | "), required: true },
    },
    run() {},
  }),
  [
    `echo '{"session_id":"s1","cwd":"'"$PWD"'","hook_event_name":"SessionStart","source":"startup"}' | coffer hook session-start --agent claude`,
    `echo '{"session_id":"s1","cwd":"'"$PWD"'","hook_event_name":"UserPromptSubmit","prompt":"how do we release?"}' | coffer hook prompt --agent claude`,
    "coffer set-read auto    # when hooks inject (see also: coffer set-proof compact)",
    "coffer link claude      # installs the hooks; what goes wrong is in ~/.coffer/state/hook.log",
  ],
);
