import { defineCommand } from "citty";
import { withExamples } from "./_run";

/**
 * Help text only: `coffer hook ...` never reaches citty. src/cli.ts sends it straight to
 * src/hooks/entry.ts (`runHookCli`), which reads the host's JSON on stdin and always exits 0.
 */
export default withExamples(
  defineCommand({
    meta: {
      name: "hook",
      description:
        "Hook entry point the agents call: reads the host's hook JSON on stdin, prints the host's JSON on stdout " +
        "(rules at session start, new memory on prompts and file touches), always exits 0. Installed by `coffer link`; " +
        "problems go to state/hook.log.",
    },
    args: {
      event: {
        type: "positional",
        description: "session-start | prompt | tool | compact | subagent-start | session-end",
        required: true,
      },
      agent: { type: "string", description: "claude | codex | gemini | cursor | windsurf | opencode", required: true },
    },
    run() {},
  }),
  [
    `echo '{"session_id":"s1","cwd":"'"$PWD"'","hook_event_name":"SessionStart","source":"startup"}' | coffer hook session-start --agent claude`,
    `echo '{"session_id":"s1","cwd":"'"$PWD"'","hook_event_name":"UserPromptSubmit","prompt":"how do we release?"}' | coffer hook prompt --agent claude`,
    "coffer set-read auto    # when hooks inject (see also: coffer set-proof compact)",
  ],
);
