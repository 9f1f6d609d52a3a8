/**
 * Cline CLI: hooks are script files its hooks folder holds, one per event, named after it
 * (`~/.cline/hooks/`; project: `.cline/hooks/`); Cline runs a `.sh` file with bash. Coffer writes
 * `UserPromptSubmit.sh` and `PostToolUse.sh` (see hook.ts), each marked as Coffer's by its first
 * line. MCP in `~/.cline/data/settings/cline_mcp_settings.json` in the shape `cline mcp add`
 * writes (`transport: {type: "stdio", command, args}`); user level only. `$CLINE_DIR` moves `~/.cline`
 * (`$CLINE_DATA_DIR` its `data/`, `$CLINE_MCP_SETTINGS_PATH` the MCP file). Finished sessions are
 * read by the transcript sweep (Cline has no session-end hook that waits).
 */
import { join } from "node:path";
import { envDir, type HostLink, SERVE_ARGS, type Target } from "../link";

const MARKER = "# coffer: written by `coffer link cline`; `coffer unlink cline` removes it. Do not edit.";

/** Cline's own folder: `$CLINE_DIR`, else `~/.cline` (as `@cline/shared` resolves it). */
const clineDir = (t: Target) => envDir("CLINE_DIR", t.home, false) ?? join(t.home, ".cline");

const hooksDir = (t: Target) => (t.root ? join(t.root, ".cline", "hooks") : join(clineDir(t), "hooks"));

/** `$CLINE_MCP_SETTINGS_PATH`, else `settings/cline_mcp_settings.json` under `$CLINE_DATA_DIR` or the folder's `data/`. */
const mcpFile = (t: Target) =>
  envDir("CLINE_MCP_SETTINGS_PATH", t.home, false) ??
  join(envDir("CLINE_DATA_DIR", t.home, false) ?? join(clineDir(t), "data"), "settings", "cline_mcp_settings.json");

/** Single quotes for sh. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A hook script: the payload once, `coffer hook session-start` (the rules bundle, once a session)
 * and the event's handler on it, their `contextModification`s joined into one answer.
 * `filter`: a `case` pattern the payload must match for the event's handler to run.
 */
function script(bin: string, event: string, native: string, filter?: string): string {
  const run = (e: string) => `printf '%s' "$p" | ${sq(bin)} hook ${e} --agent cline`;
  const second = filter ? `case $p in ${filter}) b=$(${run(event)}) ;; *) b= ;; esac` : `b=$(${run(event)})`;
  return `${MARKER}
# Cline runs this on ${native}: Coffer's rules bundle (once a session) and the memory this event routes.
p=$(cat)
a=$(${run("session-start")})
${second}
k='{"contextModification":"'
case $a in "$k"*) ;; *) a= ;; esac
case $b in "$k"*) ;; *) b= ;; esac
if [ -n "$a" ] && [ -n "$b" ]; then printf '%s\\\\n\\\\n%s\\n' "\${a%'"}'}" "\${b#"$k"}"
elif [ -n "$a" ]; then printf '%s\\n' "$a"
elif [ -n "$b" ]; then printf '%s\\n' "$b"
else printf '{}\\n'
fi
`;
}

/** The file tools whose paths are path triggers (their names as Cline's payload writes them). */
const FILE_TOOLS = `*'"name":"read_files"'*|*'"name":"apply_patch"'*`;

const BIN_LINE = /^a=\$\(printf '%s' "\$p" \| '((?:[^']|'\\'')*)' hook /m;

export const link: HostLink = {
  host: "cline",
  name: "Cline",
  hooks: {
    kind: "plugin",
    file: (t) => join(hooksDir(t), "UserPromptSubmit.sh"),
    marker: MARKER,
    render: (bin) => script(bin, "prompt", "UserPromptSubmit"),
    more: (t) => [
      { file: join(hooksDir(t), "PostToolUse.sh"), render: (bin) => script(bin, "tool", "PostToolUse", FILE_TOOLS) },
    ],
    binaryOf: (text) => BIN_LINE.exec(text)?.[1]?.replace(/'\\''/g, "'"),
    events: ["UserPromptSubmit", "PostToolUse"],
  },
  mcp: {
    file: (t) => (t.root ? undefined : { path: mcpFile(t), dialect: "json" }),
    path: ["mcpServers", "coffer"],
    value: (bin) => ({ transport: { type: "stdio", command: bin, args: [...SERVE_ARGS] } }),
    binaryOf: (entry) => {
      const e = entry as { transport?: { command?: unknown }; command?: unknown } | undefined;
      const c = e?.transport?.command ?? e?.command;
      return typeof c === "string" ? c : undefined;
    },
    unavailable: () => "Cline reads MCP servers from your user settings only: link without --project to register it",
  },
  sessionEnd: "sweep",
  gets: {
    bundle: "hook",
    promptDelta: true,
    pathTriggers: ["read_files", "apply_patch"],
    subagents: false,
    harvest: false,
  },
  installed: { dirs: [".cline"], bins: ["cline"], env: "CLINE_DIR" },
};
