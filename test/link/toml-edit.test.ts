/** src/lib/toml-edit.ts: every edit keeps the rest of the file byte-for-byte, and undoes exactly. */
import { describe, expect, test } from "bun:test";
import { parse } from "smol-toml";
import {
  deleteTomlKey,
  deleteTomlTable,
  getTomlRaw,
  hasTomlTable,
  setTomlKey,
  setTomlTable,
  tomlValue,
} from "../../src/lib/toml-edit";

const CODEX = `# ~/.codex/config.toml — hand-tuned; keep my comments
model = "gpt-5-codex"  # default model
model_reasoning_effort = "high"
approval_policy = "on-request"

# Feature switches
[features]
web_search_request = true   # I want search, don't drop this comment

[mcp_servers.github]
command = "npx"
args = [
  "-y",
  "@modelcontextprotocol/server-github", # pinned
]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_example" }

[profiles.deep]
model = "o3"  # Überlegung — 深い思考
notes = """
multi-line string with [brackets] and = signs
# not a comment
"""

[projects."/home/me/src/ünïcode repo"]
trust_level = "trusted"
`;

function roundTrip(text: string, edit: (t: string) => string, undo: (t: string) => string): string {
  const edited = edit(text);
  expect(() => parse(edited)).not.toThrow();
  expect(undo(edited)).toBe(text);
  return edited;
}

describe("setTomlKey", () => {
  test("new key in an existing table goes after its last key; delete restores the bytes", () => {
    const out = roundTrip(
      CODEX,
      (t) => setTomlKey(t, ["features", "memories"], false),
      (t) => deleteTomlKey(t, ["features", "memories"], false),
    );
    expect(out).toContain(
      "web_search_request = true   # I want search, don't drop this comment\nmemories = false\n\n[mcp_servers.github]",
    );
    expect((parse(out) as any).features).toEqual({ web_search_request: true, memories: false });
  });

  test("new table is appended as one block after the last line and removed again with its blank line", () => {
    const out = roundTrip(
      CODEX,
      (t) => setTomlKey(t, ["memories", "generate_memories"], false),
      (t) => deleteTomlKey(t, ["memories", "generate_memories"], true),
    );
    expect(out.endsWith('trust_level = "trusted"\n\n[memories]\ngenerate_memories = false\n')).toBe(true);
  });

  test("existing value is replaced in place, keeping a trailing comment that contains quotes", () => {
    const text = `[features]\nmemories = true # don't "touch" this\nother = 1\n`;
    const out = setTomlKey(text, ["features", "memories"], false);
    expect(out).toBe(`[features]\nmemories = false # don't "touch" this\nother = 1\n`);
    expect(setTomlKey(out, ["features", "memories"], undefined, "true")).toBe(text);
  });

  test("a value containing # is not mistaken for a comment", () => {
    const text = `[a]\nurl = "http://x/#frag" # real comment\n`;
    expect(getTomlRaw(text, ["a", "url"])).toBe(`"http://x/#frag"`);
    expect(setTomlKey(text, ["a", "url"], "y")).toBe(`[a]\nurl = "y" # real comment\n`);
  });

  test("raw text is restored exactly (quoting, spacing of the value)", () => {
    const text = `[memories]\ngenerate_memories   =   'yes'  # odd but valid\n`;
    const raw = getTomlRaw(text, ["memories", "generate_memories"])!;
    expect(raw).toBe(`'yes'`);
    const off = setTomlKey(text, ["memories", "generate_memories"], false);
    expect(off).toBe(`[memories]\ngenerate_memories   =   false  # odd but valid\n`);
    expect(setTomlKey(off, ["memories", "generate_memories"], undefined, raw)).toBe(text);
  });

  test("CRLF line endings are kept", () => {
    const text = CODEX.replaceAll("\n", "\r\n");
    const out = roundTrip(
      text,
      (t) => setTomlKey(t, ["features", "memories"], false),
      (t) => deleteTomlKey(t, ["features", "memories"], false),
    );
    expect(out.replaceAll("\r\n", "")).not.toContain("\n");
  });

  test("a file without a trailing newline keeps not having one", () => {
    const text = `[features]\nweb = true`;
    const inTable = roundTrip(
      text,
      (t) => setTomlKey(t, ["features", "memories"], false),
      (t) => deleteTomlKey(t, ["features", "memories"], false),
    );
    expect(inTable).toBe(`[features]\nweb = true\nmemories = false`);
    const newTable = roundTrip(
      text,
      (t) => setTomlKey(t, ["memories", "generate_memories"], false),
      (t) => deleteTomlKey(t, ["memories", "generate_memories"], true),
    );
    expect(newTable.startsWith(`${text}\n`)).toBe(true);
    expect(newTable.endsWith("\n")).toBe(false);
    expect(newTable).toContain("[memories]\ngenerate_memories = false");
  });

  test("a file ending in blank lines: block goes before them and comes back out exactly", () => {
    const text = `model = "x"\n\n\n`;
    const out = roundTrip(
      text,
      (t) => setTomlKey(t, ["features", "memories"], false),
      (t) => deleteTomlKey(t, ["features", "memories"], true),
    );
    expect(out).toBe(`model = "x"\n\n[features]\nmemories = false\n\n\n`);
  });

  test("empty file", () => {
    expect(setTomlKey("", ["distill", "sweep"], true)).toBe(`[distill]\nsweep = true\n`);
    expect(deleteTomlKey(`[distill]\nsweep = true\n`, ["distill", "sweep"], true)).toBe("");
  });

  test("dotted keys that define the table from the root get a dotted sibling (no conflicting header)", () => {
    const text = `model = "x"\nfeatures.web_search_request = true\n\n[profiles.a]\nmodel = "y"\n`;
    const out = roundTrip(
      text,
      (t) => setTomlKey(t, ["features", "memories"], false),
      (t) => deleteTomlKey(t, ["features", "memories"], false),
    );
    expect(out).toContain("features.web_search_request = true\nfeatures.memories = false\n");
    expect((parse(out) as any).features.memories).toBe(false);
  });

  test("dotted key inside a table header is found and replaced", () => {
    const text = `[mcp_servers]\ncoffer.command = "/old/coffer"\ncoffer.args = ["serve"]\n`;
    expect(setTomlKey(text, ["mcp_servers", "coffer", "command"], "/new/coffer")).toBe(
      `[mcp_servers]\ncoffer.command = "/new/coffer"\ncoffer.args = ["serve"]\n`,
    );
  });

  test("an inline table covering the key is refused with an actionable error", () => {
    const text = `features = { web_search_request = true }\n`;
    expect(() => setTomlKey(text, ["features", "memories"], false)).toThrow(/inline value/);
  });

  test("keys inside [[array]] tables are never matched as a plain table", () => {
    const text = `[[features]]\nmemories = true\n`;
    expect(getTomlRaw(text, ["features", "memories"])).toBeUndefined();
  });

  test("multi-line array value is replaced as a whole", () => {
    const text = `[mcp_servers.github]\nargs = [\n  "-y",\n  "pkg", # c\n]\nenv = {}\n`;
    const out = setTomlKey(text, ["mcp_servers", "github", "args"], ["a"]);
    expect(out).toBe(`[mcp_servers.github]\nargs = ["a"]\nenv = {}\n`);
  });

  test("a key-looking line inside a multi-line string is not a key", () => {
    expect(getTomlRaw(CODEX, ["profiles", "deep", "model"])).toBe(`"o3"`);
    const out = setTomlKey(CODEX, ["profiles", "deep", "x"], 1);
    expect((parse(out) as any).profiles.deep.notes).toContain("# not a comment");
  });

  test("quoted table names with dots and spaces", () => {
    expect(getTomlRaw(CODEX, ["projects", "/home/me/src/ünïcode repo", "trust_level"])).toBe(`"trusted"`);
    const out = setTomlKey(CODEX, ["projects", "/home/me/src/ünïcode repo", "trust_level"], "untrusted");
    expect((parse(out) as any).projects["/home/me/src/ünïcode repo"].trust_level).toBe("untrusted");
  });

  test("deleting the last key of a table the user wrote keeps the (now empty) table when asked", () => {
    const text = `[features]\nmemories = false\n\n[x]\ny = 1\n`;
    expect(deleteTomlKey(text, ["features", "memories"], false)).toBe(`[features]\n\n[x]\ny = 1\n`);
    expect(deleteTomlKey(text, ["features", "memories"], true)).toBe(`[x]\ny = 1\n`);
  });

  test("a table with a comment in its body is never dropped", () => {
    const text = `[features]\n# keep me\nmemories = false\n`;
    expect(deleteTomlKey(text, ["features", "memories"], true)).toBe(`[features]\n# keep me\n`);
  });

  test("tomlValue", () => {
    expect(tomlValue(["serve", "--stdio"])).toBe(`["serve", "--stdio"]`);
    expect(tomlValue('a"b\\c')).toBe(`"a\\"b\\\\c"`);
    expect(tomlValue({ a: 1, "b c": true })).toBe(`{ a = 1, "b c" = true }`);
    expect(tomlValue({})).toBe("{}");
  });
});

describe("setTomlTable / deleteTomlTable", () => {
  test("[mcp_servers.coffer] appended after everything and removed exactly", () => {
    const out = roundTrip(
      CODEX,
      (t) => setTomlTable(t, ["mcp_servers", "coffer"], { command: "/opt/coffer", args: ["serve", "--stdio"] }),
      (t) => deleteTomlTable(t, ["mcp_servers", "coffer"]),
    );
    expect(
      out.endsWith(
        `trust_level = "trusted"\n\n[mcp_servers.coffer]\ncommand = "/opt/coffer"\nargs = ["serve", "--stdio"]\n`,
      ),
    ).toBe(true);
    expect((parse(out) as any).mcp_servers.github.command).toBe("npx");
  });

  test("an existing table has its keys updated and other keys (env, timeouts) kept", () => {
    const text = `[mcp_servers.coffer]\ncommand = "/old/coffer" # moved\nargs = ["serve", "--stdio"]\nstartup_timeout_sec = 20\n`;
    const out = setTomlTable(text, ["mcp_servers", "coffer"], { command: "/new/coffer", args: ["serve", "--stdio"] });
    expect(out).toBe(
      `[mcp_servers.coffer]\ncommand = "/new/coffer" # moved\nargs = ["serve", "--stdio"]\nstartup_timeout_sec = 20\n`,
    );
  });

  test("a table in the middle goes with its sub-tables, the next table's comment stays", () => {
    const text = `a = 1\n\n[mcp_servers.coffer]\ncommand = "c"\n\n[mcp_servers.coffer.env]\nX = "1"\n\n# GitHub server\n[mcp_servers.github]\ncommand = "npx"\n`;
    expect(deleteTomlTable(text, ["mcp_servers", "coffer"])).toBe(
      `a = 1\n\n# GitHub server\n[mcp_servers.github]\ncommand = "npx"\n`,
    );
  });

  test("an inline registration under [mcp_servers] is replaced and removed as one key", () => {
    const text = `[mcp_servers]\ncoffer = { command = "/old/coffer", args = [] }\ngithub = { command = "npx" }\n`;
    const out = setTomlTable(
      text,
      ["mcp_servers", "coffer"],
      { command: "/new/coffer", args: ["serve", "--stdio"] },
      { command: "/old/coffer", args: [] },
    );
    expect(out).toBe(
      `[mcp_servers]\ncoffer = { command = "/new/coffer", args = ["serve", "--stdio"] }\ngithub = { command = "npx" }\n`,
    );
    const withEnv = `[mcp_servers]\ncoffer = { command = "/old/coffer", env = { A = "1" } }\n`;
    expect(
      setTomlTable(
        withEnv,
        ["mcp_servers", "coffer"],
        { command: "/new/coffer" },
        { command: "/old/coffer", env: { A: "1" } },
      ),
    ).toBe(`[mcp_servers]\ncoffer = { command = "/new/coffer", env = { A = "1" } }\n`);
    expect(deleteTomlTable(out, ["mcp_servers", "coffer"])).toBe(`[mcp_servers]\ngithub = { command = "npx" }\n`);
  });

  test("dotted-key registration is removed key by key", () => {
    const text = `[mcp_servers]\ncoffer.command = "/x/coffer"\ncoffer.args = ["serve"]\ngithub.command = "npx"\n`;
    expect(deleteTomlTable(text, ["mcp_servers", "coffer"])).toBe(`[mcp_servers]\ngithub.command = "npx"\n`);
  });

  test("a table at the very top", () => {
    const text = `[mcp_servers.coffer]\ncommand = "c"\n\n[x]\ny = 1\n`;
    expect(deleteTomlTable(text, ["mcp_servers", "coffer"])).toBe(`[x]\ny = 1\n`);
  });

  test("hasTomlTable", () => {
    expect(hasTomlTable(CODEX, ["features"])).toBe(true);
    expect(hasTomlTable(CODEX, ["memories"])).toBe(false);
    expect(hasTomlTable(`features.x = 1\n`, ["features"])).toBe(true);
  });

  test("absent things: deleting is a no-op", () => {
    expect(deleteTomlTable(CODEX, ["mcp_servers", "coffer"])).toBe(CODEX);
    expect(deleteTomlKey(CODEX, ["features", "memories"])).toBe(CODEX);
  });
});

describe("every edit parses to exactly the intended document", () => {
  const ops: [string, (t: string) => string, (doc: any) => void][] = [
    ["features.memories", (t) => setTomlKey(t, ["features", "memories"], false), (d) => (d.features.memories = false)],
    [
      "memories.generate_memories",
      (t) => setTomlKey(t, ["memories", "generate_memories"], false),
      (d) => (d.memories = { generate_memories: false }),
    ],
    [
      "mcp_servers.coffer",
      (t) => setTomlTable(t, ["mcp_servers", "coffer"], { command: "/c", args: ["serve", "--stdio"] }),
      (d) => (d.mcp_servers.coffer = { command: "/c", args: ["serve", "--stdio"] }),
    ],
    [
      "profiles.deep.model",
      (t) => setTomlKey(t, ["profiles", "deep", "model"], "o4"),
      (d) => (d.profiles.deep.model = "o4"),
    ],
    [
      "delete github (the only server: the implicit [mcp_servers] goes too)",
      (t) => deleteTomlTable(t, ["mcp_servers", "github"]),
      (d) => delete d.mcp_servers,
    ],
  ];
  for (const [name, edit, expectChange] of ops) {
    test(name, () => {
      const expected = parse(CODEX) as any;
      expectChange(expected);
      expect(parse(edit(CODEX))).toEqual(expected);
    });
  }
});
