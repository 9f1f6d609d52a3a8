/** The hook command strings and how Coffer recognises its own entries. */
import { expect, test } from "bun:test";
import { hookCommand, isCofferBinaryPath, isManagedHookCommand, shellQuote, shellWords } from "../../src/link/command";

test("hookCommand quotes only when the path needs it", () => {
  expect(hookCommand("/usr/local/bin/coffer", "session-start", "claude")).toBe(
    "/usr/local/bin/coffer hook session-start --agent claude",
  );
  expect(hookCommand("/Users/Zoë Smith/bin/coffer", "prompt", "codex")).toBe(
    "'/Users/Zoë Smith/bin/coffer' hook prompt --agent codex",
  );
  expect(shellQuote("/tmp/it's/coffer")).toBe(`'/tmp/it'\\''s/coffer'`);
});

test("shellWords reads the first words the way sh does", () => {
  expect(shellWords(`'/a b/coffer' hook prompt`)).toEqual(["/a b/coffer", "hook", "prompt"]);
  expect(shellWords(`"/a \\"b\\"/coffer" hook`)).toEqual([`/a "b"/coffer`, "hook"]);
  expect(shellWords(`/a\\ b/coffer   hook`)).toEqual(["/a b/coffer", "hook"]);
  expect(shellWords(`'/tmp/it'\\''s/coffer' hook`)).toEqual(["/tmp/it's/coffer", "hook"]);
  expect(shellWords("")).toEqual([]);
});

test("managed = first word's basename is coffer and the second word is hook", () => {
  for (const cmd of [
    "/usr/local/bin/coffer hook prompt --agent claude",
    "'/Users/Zoë Smith/bin/coffer' hook tool --agent codex",
    "coffer hook session-start --agent cursor",
    "~/bin/coffer hook x",
  ])
    expect(isManagedHookCommand(cmd)).toBe(true);
  for (const cmd of [
    "/usr/local/bin/coffer serve --stdio",
    "/usr/local/bin/coffer-old hook prompt",
    "python3 coffer hook",
    "echo /bin/coffer hook",
    "/opt/coffer/bin/run hook",
    42,
    undefined,
  ])
    expect(isManagedHookCommand(cmd)).toBe(false);
});

test("isCofferBinaryPath", () => {
  expect(isCofferBinaryPath("/x/coffer")).toBe(true);
  expect(isCofferBinaryPath("npx")).toBe(false);
  expect(isCofferBinaryPath(undefined)).toBe(false);
});
