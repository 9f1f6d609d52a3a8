/**
 * Seeded random configs in many shapes and styles: linking Coffer's entries and unlinking them
 * again must give back the exact bytes, and the linked document must be the original plus
 * Coffer's entries and nothing else.
 */
import { describe, expect, test } from "bun:test";
import { parse as parseToml } from "smol-toml";
import {
  deleteTomlKey,
  deleteTomlTable,
  getTomlRaw,
  hasTomlTable,
  setTomlKey,
  setTomlTable,
} from "../../src/lib/toml-edit";
import { findManaged, syncManagedHooks } from "../../src/link/hooks-json";
import { JsonDoc } from "../../src/link/json-edit";
import { rng } from "../kit";
import { withoutCoffer } from "./util";

const WORDS = ["alpha", "Überlegung", "日本語", "café", "x", "model", "théme", "emoji ✨", "a b", 'quote"d'];
const EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "PreCompact", "Notification"];

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 2 || k < 0.3) return WORDS[Math.floor(r() * WORDS.length)];
  if (k < 0.4) return Math.floor(r() * 1000);
  if (k < 0.5) return r() < 0.5;
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(r() * 3) }, (_, i) => [
      `${WORDS[Math.floor(r() * WORDS.length)]}${i}`,
      randomValue(r, depth + 1),
    ]),
  );
}

function randomSettings(r: () => number, layout: "grouped" | "flat"): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  const keys = ["model", "env", "permissions", "theme", "statusLine"].sort(() => r() - 0.5);
  const hooksAt = Math.floor(r() * (keys.length + 1));
  keys.forEach((key, i) => {
    if (i === hooksAt) doc.hooks = randomHooks(r, layout);
    if (r() < 0.7) doc[key] = randomValue(r, 0);
  });
  if (hooksAt === keys.length && r() < 0.8) doc.hooks = randomHooks(r, layout);
  return doc;
}

function randomHooks(r: () => number, layout: "grouped" | "flat"): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const e of EVENTS) {
    if (r() < 0.5) continue;
    const n = Math.floor(r() * 3);
    hooks[e] = Array.from({ length: n }, (_, i) => {
      const entry = {
        type: "command",
        command: `~/bin/${WORDS[i % WORDS.length]!.replace(/\W/g, "")}.sh --n ${i}`,
        ...(r() < 0.5 ? { timeout: i + 1 } : {}),
      };
      if (layout === "flat") return entry;
      return { ...(r() < 0.5 ? { matcher: "Bash" } : {}), hooks: [entry] };
    });
  }
  return hooks;
}

/** Serialize in one of several styles people and tools actually write. */
function styled(r: () => number, value: unknown): { text: string; dialect: "json" | "jsonc" } {
  const style = Math.floor(r() * 6);
  let text: string;
  switch (style) {
    case 0:
      text = `${JSON.stringify(value, null, 2)}\n`;
      break;
    case 1:
      text = JSON.stringify(value, null, 4);
      break;
    case 2:
      text = `${JSON.stringify(value, null, "\t")}\n`;
      break;
    case 3:
      text = `${JSON.stringify(value, null, 2)}\n`.replaceAll("\n", "\r\n");
      break;
    case 4:
      // A comment on the first line and after some values (JSONC).
      text =
        "// my settings\n" +
        JSON.stringify(value, null, 2).replace(/("model": [^\n]*?)(,?)\n/, "$1$2 // chosen carefully\n") +
        "\n";
      return { text, dialect: "jsonc" };
    default:
      // Trailing commas everywhere a JSONC writer might leave them.
      text = `${JSON.stringify(value, null, 2).replace(/([}\]"\d])\n(\s*[}\]])/g, "$1,\n$2")}\n`;
      return { text, dialect: "jsonc" };
  }
  return { text, dialect: "json" };
}

const BIN = "/opt/coffer/bin/coffer";

function desired(r: () => number, layout: "grouped" | "flat"): Map<string, Record<string, unknown>[]> {
  const m = new Map<string, Record<string, unknown>[]>();
  for (const [i, e] of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreCompact"].entries()) {
    if (r() < 0.2) continue;
    const entry = { type: "command", command: `${BIN} hook e${i} --agent claude`, timeout: 10 };
    m.set(e, [layout === "flat" ? entry : { ...(i % 2 ? {} : { matcher: "*" }), hooks: [entry] }]);
  }
  return m;
}

describe("random JSON hook configs", () => {
  for (const layout of ["grouped", "flat"] as const) {
    test(`${layout}: 300 configs link, relink (no-op) and unlink byte-exact`, () => {
      const r = rng(layout === "grouped" ? 7 : 11);
      for (let i = 0; i < 300; i++) {
        const value = randomSettings(r, layout);
        const { text, dialect } = styled(r, value);
        const want = desired(r, layout);
        const doc = new JsonDoc(text, `case-${i}.json`, dialect);
        const original = doc.value;
        syncManagedHooks(doc, layout, want);
        const linked = doc.text;
        expect(withoutCoffer(doc.value, original)).toEqual(original);
        expect(new Set(findManaged(doc, layout).map((m) => m.event))).toEqual(new Set(want.keys()));
        // Second link: byte-identical.
        syncManagedHooks(doc, layout, want);
        expect(doc.text).toBe(linked);
        // Unlink: the original bytes (empty containers the user had are kept by the engine's
        // bookkeeping; here the user's empty event lists are spared by never being emptied).
        syncManagedHooks(doc, layout, new Map(), {
          noteEmpty: () => {},
          mayDrop: (path) =>
            path.length === 1
              ? (original as any).hooks === undefined || Object.keys((original as any).hooks).length > 0
              : (original as any).hooks?.[path[1]!] === undefined,
        });
        expect(doc.text).toBe(text);
      }
    });
  }
});

describe("random Codex config.toml", () => {
  const BLOCKS = [
    `# top comment — ünïcode\nmodel = "gpt-5" # default\n`,
    `approval_policy = "on-request"\n`,
    `[features]\nweb_search_request = true # keep\n`,
    `[features]\n`,
    `[memories]\nmax_entries = 10\n`,
    `[mcp_servers.github]\ncommand = "npx"\nargs = [\n  "-y", # flag\n  "pkg",\n]\n`,
    `[mcp_servers.linear]\ncommand = "uvx"\nenv = { KEY = "v" }\n`,
    `[profiles.deep]\nmodel = "o3" # 深い\nnotes = """\nline with = and [x]\n"""\n`,
    `# a comment block\n\n# and another\n`,
    `[projects."/home/me/a b"]\ntrust_level = "trusted"\n`,
  ];

  test("300 documents: MCP table + both switches on, then off again, byte-exact and structurally exact", () => {
    const r = rng(3);
    for (let i = 0; i < 300; i++) {
      const rootKeys = BLOCKS.slice(0, 2).filter(() => r() < 0.6);
      const tables = BLOCKS.slice(2)
        .filter(() => r() < 0.4)
        .sort(() => r() - 0.5);
      // TOML forbids defining a table twice.
      const seen = new Set<string>();
      const uniq = tables.filter((b) => {
        const h = /^\[([^\]]+)\]/m.exec(b)?.[1] ?? b;
        if (seen.has(h)) return false;
        seen.add(h);
        return true;
      });
      let text = [...rootKeys, ...uniq].join(r() < 0.5 ? "\n" : "");
      if (r() < 0.2) text = text.replace(/\n$/, "");
      if (r() < 0.2) text = text.replaceAll("\n", "\r\n");
      const original = parseToml(text) as any;

      let t = text;
      t = setTomlTable(t, ["mcp_servers", "coffer"], { command: BIN, args: ["serve", "--stdio"] });
      const saved = (["features.memories", "memories.generate_memories"] as const).map((k) => {
        const path = k.split(".");
        const raw = getTomlRaw(t, path);
        return { path, raw, tableAbsent: !hasTomlTable(t, path.slice(0, -1)) };
      });
      for (const s of saved) t = setTomlKey(t, s.path, false);
      const linked = parseToml(t) as any;
      expect(linked.mcp_servers.coffer).toEqual({ command: BIN, args: ["serve", "--stdio"] });
      expect(linked.features.memories).toBe(false);
      expect(linked.memories.generate_memories).toBe(false);
      const back = structuredClone(linked);
      delete back.mcp_servers.coffer;
      if (!Object.keys(back.mcp_servers).length && !original.mcp_servers) delete back.mcp_servers;
      for (const s of saved) {
        const [table, key] = s.path as [string, string];
        if (original[table]?.[key] === undefined) delete back[table][key];
        else back[table][key] = original[table][key];
        if (!Object.keys(back[table]).length && original[table] === undefined) delete back[table];
      }
      expect(back).toEqual(original);
      // Undo in reverse order.
      for (const s of [...saved].reverse())
        t = s.raw !== undefined ? setTomlKey(t, s.path, undefined, s.raw) : deleteTomlKey(t, s.path, s.tableAbsent);
      t = deleteTomlTable(t, ["mcp_servers", "coffer"]);
      expect(t).toBe(text);
    }
  });
});
