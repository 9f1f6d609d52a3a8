import { type CommandDef, runCommand } from "citty";
import { didYouMean } from "../lib/did-you-mean";
import { CofferError } from "../lib/errors";
import { writeErr, writeOut } from "../lib/output";
import { storageError } from "../lib/storage-error";
import { checkArgv } from "./_args";
import { commandHelp, EXAMPLES, mainHelp, type WithExamples } from "./_help";

type Entry = { description: string; load: () => Promise<{ default: CommandDef<any> }>; hidden?: boolean };

/** Terminal colour escape sequences (citty colours its error messages). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

export function withExamples<T extends CommandDef<any>>(cmd: T, examples: string[]): T {
  (cmd as WithExamples)[EXAMPLES] = examples;
  return cmd;
}

/** The deepest sub-command named in argv (for `coffer rules add --help`). */
async function resolveDeepest(
  cmd: CommandDef<any>,
  argv: string[],
  name: string,
): Promise<{ cmd: CommandDef<any>; name: string }> {
  const subs = typeof cmd.subCommands === "function" ? await cmd.subCommands() : await cmd.subCommands;
  const next = argv.find((a) => !a.startsWith("-"));
  if (subs && next && next in subs) {
    const raw = subs[next]!;
    const sub = (typeof raw === "function" ? await (raw as () => unknown)() : await raw) as CommandDef<any>;
    return resolveDeepest(sub, argv.slice(argv.indexOf(next) + 1), `${name} ${next}`);
  }
  return { cmd, name };
}

function fail(message: string, hint: string | undefined, code: number, command?: string): never {
  const text = message.startsWith("coffer ") ? message : `coffer${command ? ` ${command}` : ""}: ${message}`;
  writeErr(`${text}\n${hint ? `  ${hint}\n` : ""}`);
  process.exit(code);
}

/** A write that found the reader gone (a stream some library writes to); `output.ts` ends quietly on its own. */
const isPipeClosed = (err: unknown) => (err as { code?: string } | null)?.code === "EPIPE";

/** Parse argv, run one command, map errors to exit codes: 1 user error, 2 usage error. */
export async function runCli(argv: string[], commands: Record<string, Entry>, version: string): Promise<void> {
  const [name, ...rest] = argv;
  if (name === "help" && rest[0] && Object.hasOwn(commands, rest[0])) {
    // `coffer help remember` = `coffer remember --help`
    return runCli([rest[0], ...rest.slice(1), "--help"], commands, version);
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    writeOut(`${mainHelp(commands, version)}\n`);
    return;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    writeOut(`${version}\n`);
    return;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry && name.startsWith("-")) {
    const guess = didYouMean(name.replace(/^-+/, ""), ["help", "version"]);
    fail(
      `unknown option ${name}`,
      guess ? `Did you mean --${guess}?` : "Run `coffer --help` for the list of commands.",
      2,
    );
  }
  if (!entry) {
    const guess = didYouMean(
      name,
      Object.keys(commands).filter((n) => !commands[n]!.hidden),
    );
    fail(
      `unknown command "${name}"`,
      guess
        ? `Did you mean \`coffer ${guess}\`? (\`coffer --help\` lists the commands)`
        : "Run `coffer --help` for the list of commands.",
      2,
    );
  }
  const cmd = (await entry.load()).default;
  if (rest.includes("--help") || rest.includes("-h")) {
    const deepest = await resolveDeepest(cmd, rest, `coffer ${name}`);
    writeOut(`${await commandHelp(deepest.cmd, deepest.name)}\n`);
    return;
  }
  try {
    // Strict: unknown options, extra words and bad enum values stop here, before anything is written.
    const rawArgs = await checkArgv(cmd, rest, `coffer ${name}`);
    await runCommand(cmd, { rawArgs });
  } catch (err) {
    if (isPipeClosed(err)) process.exit(0);
    if (err instanceof CofferError) fail(err.message, err.hint, err.exitCode, name);
    const storage = storageError(err); // read-only, full or locked store: say so, not "a bug"
    if (storage) fail(storage.message, storage.hint, storage.exitCode, name);
    const e = err as Error & { code?: string };
    if (e?.name === "CLIError") fail(e.message.replace(ANSI, ""), `Run \`coffer ${name} --help\` for usage.`, 2, name);
    fail(e?.stack ?? String(err), "This is a bug in Coffer; please report it with the command you ran.", 1, name);
  }
}
