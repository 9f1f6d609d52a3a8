/** src/link/json-edit.ts: splices that keep every other byte, and appends that remove exactly. */
import { describe, expect, test } from "bun:test";
import { JsonDoc } from "../../src/link/json-edit";
import { detectIndentUnit } from "../../src/link/json-splice";
import { shallowTreeBy } from "../../src/link/json-tree";

const doc = (text: string, dialect: "json" | "json-comments" | "jsonc" = "jsonc") =>
  new JsonDoc(text, "f.json", dialect);

/** Append then remove must give back the original text byte-for-byte. */
function appendRemove(
  text: string,
  path: (string | number)[],
  value: unknown,
  dialect: "json" | "json-comments" | "jsonc" = "jsonc",
): string {
  const d = doc(text, dialect);
  d.append(path, value);
  const appended = d.text;
  const arr = d.get(path) as unknown[];
  d.remove([...path, arr.length - 1]);
  expect(d.text).toBe(text);
  return appended;
}

function setRemove(
  text: string,
  path: string[],
  value: unknown,
  dialect: "json" | "json-comments" | "jsonc" = "jsonc",
): string {
  const d = doc(text, dialect);
  d.set(path, value);
  const out = d.text;
  d.remove(path);
  expect(d.text).toBe(text);
  return out;
}

describe("append + remove are inverses", () => {
  test("2-space array of objects", () => {
    const t = `{\n  "a": [\n    { "x": 1 }\n  ]\n}\n`;
    expect(appendRemove(t, ["a"], { y: 2 })).toBe(`{\n  "a": [\n    { "x": 1 },\n    {\n      "y": 2\n    }\n  ]\n}\n`);
  });

  test("tabs", () => {
    const t = `{\n\t"a": [\n\t\t1\n\t]\n}`;
    expect(appendRemove(t, ["a"], { k: [1] })).toBe(
      `{\n\t"a": [\n\t\t1,\n\t\t{\n\t\t\t"k": [\n\t\t\t\t1\n\t\t\t]\n\t\t}\n\t]\n}`,
    );
  });

  test("4 spaces and CRLF", () => {
    const t = `{\r\n    "a": [\r\n        "x"\r\n    ]\r\n}\r\n`;
    expect(appendRemove(t, ["a"], { k: 1 })).toBe(
      `{\r\n    "a": [\r\n        "x",\r\n        {\r\n            "k": 1\r\n        }\r\n    ]\r\n}\r\n`,
    );
  });

  test("inline array on one line", () => {
    const t = `{\n  "a": [1, 2]\n}\n`;
    expect(appendRemove(t, ["a"], { k: 1 })).toBe(`{\n  "a": [1, 2, {"k":1}]\n}\n`);
  });

  test("empty array", () => {
    const t = `{\n  "a": []\n}\n`;
    expect(appendRemove(t, ["a"], 1)).toBe(`{\n  "a": [\n    1\n  ]\n}\n`);
  });

  test("trailing comma (JSONC) stays a trailing comma", () => {
    const t = `{\n  "a": [\n    1,\n  ],\n}\n`;
    expect(appendRemove(t, ["a"], 2)).toBe(`{\n  "a": [\n    1,\n    2,\n  ],\n}\n`);
  });

  test("a line comment after the last element stays on its line", () => {
    const t = `{\n  "a": [\n    1 // the one\n  ]\n}\n`;
    expect(appendRemove(t, ["a"], 2)).toBe(`{\n  "a": [\n    1, // the one\n    2\n  ]\n}\n`);
  });

  test("comment after a trailing comma", () => {
    const t = `{\n  "a": [\n    1, // the one\n  ]\n}\n`;
    expect(appendRemove(t, ["a"], 2)).toBe(`{\n  "a": [\n    1, // the one\n    2,\n  ]\n}\n`);
  });

  test("one-line document stays on one line", () => {
    const t = `{"a":[1]}`;
    expect(appendRemove(t, ["a"], { k: 1 }, "json")).toBe(`{"a":[1, {"k":1}]}`);
  });
});

describe("set + remove are inverses", () => {
  test("new property at the end of an object with unusual key order and non-ASCII", () => {
    const t = `{\n  "zeta": "ünïcödé — 日本語 ✓",\n  "alpha": {"x": "👋"}\n}\n`;
    expect(setRemove(t, ["autoMemoryEnabled"], false, "json")).toBe(
      `{\n  "zeta": "ünïcödé — 日本語 ✓",\n  "alpha": {"x": "👋"},\n  "autoMemoryEnabled": false\n}\n`,
    );
  });

  test("missing parents are created as one nested member", () => {
    const t = `{\n  "a": 1\n}\n`;
    const d = doc(t);
    d.set(["mcpServers", "coffer"], { command: "/c" });
    const out = d.text;
    d.remove(["mcpServers"]);
    expect(d.text).toBe(t);
    expect(out).toBe(`{\n  "a": 1,\n  "mcpServers": {\n    "coffer": {\n      "command": "/c"\n    }\n  }\n}\n`);
  });

  test("empty object", () => {
    const t = `{}\n`;
    const d = doc(t);
    d.set(["k"], true);
    expect(d.text).toBe(`{"k": true}\n`);
    d.remove(["k"]);
    expect(d.text).toBe(t);
  });

  test("empty object in a multi-line document", () => {
    const t = `{\n  "mcpServers": {}\n}\n`;
    expect(setRemove(t, ["mcpServers", "coffer"], { a: 1 })).toBe(
      `{\n  "mcpServers": {\n    "coffer": {\n      "a": 1\n    }\n  }\n}\n`,
    );
  });

  test("block comment before the closing brace", () => {
    const t = `{\n  "a": 1\n  /* trailing note */\n}\n`;
    const out = setRemove(t, ["b"], 2);
    expect(doc(out).value).toEqual({ a: 1, b: 2 });
  });
});

describe("replace in place", () => {
  test("value replaced, raw text restored exactly", () => {
    const t = `{\n  "autoMemoryEnabled" :   true ,\n  "x": 1\n}\n`;
    const d = doc(t, "json");
    const raw = d.raw(["autoMemoryEnabled"])!;
    d.set(["autoMemoryEnabled"], false);
    expect(d.text).toBe(`{\n  "autoMemoryEnabled" :   false ,\n  "x": 1\n}\n`);
    d.set(["autoMemoryEnabled"], undefined, raw);
    expect(d.text).toBe(t);
  });

  test("object value re-rendered at the key's indentation", () => {
    const t = `{\n    "mcpServers": {\n        "coffer": {"command": "/old"}\n    }\n}\n`;
    const d = doc(t);
    d.set(["mcpServers", "coffer"], { command: "/new", args: ["serve"] });
    expect(d.text).toBe(
      `{\n    "mcpServers": {\n        "coffer": {\n            "command": "/new",\n            "args": [\n                "serve"\n            ]\n        }\n    }\n}\n`,
    );
  });
});

describe("removal from the middle and the front", () => {
  test("middle element", () => {
    const d = doc(`[\n  1,\n  2,\n  3\n]`);
    d.remove([1]);
    expect(d.text).toBe(`[\n  1,\n  3\n]`);
  });
  test("first element", () => {
    const d = doc(`{\n  "a": 1,\n  "b": 2\n}`);
    d.remove(["a"]);
    expect(d.text).toBe(`{\n  "b": 2\n}`);
  });
  test("inline middle", () => {
    const d = doc(`[1, 2, 3]`);
    d.remove([1]);
    expect(d.text).toBe(`[1, 3]`);
  });
  test("only element keeps comments around it", () => {
    const d = doc(`{\n  // keep\n  "a": 1\n}`);
    d.remove(["a"]);
    expect(d.text).toBe(`{\n  // keep\n}`);
  });
});

describe("parse errors name the file, line and column", () => {
  test("strict JSON rejects comments", () => {
    expect(() => doc(`{\n  // no\n  "a": 1\n}`, "json")).toThrow(/f\.json:2:\d+: not valid JSON/);
  });
  test("comments allowed, trailing commas not", () => {
    expect(() => doc(`{\n  // ok\n  "a": 1,\n}`, "json-comments")).toThrow(/f\.json:4:1/);
    expect(doc(`{\n  // ok\n  "a": 1\n}`, "json-comments").value).toEqual({ a: 1 });
  });
  test("JSONC takes both", () => {
    expect(doc(`{\n  // ok\n  "a": 1,\n}`, "jsonc").value).toEqual({ a: 1 });
  });
  test("broken file", () => {
    expect(() => doc(`{\n  "a": 1\n  "b": 2\n}`, "json")).toThrow(/f\.json:3:3: .*CommaExpected/);
  });
  test("a non-object where an object is needed", () => {
    expect(() => doc(`{"hooks": []}`).set(["hooks", "x"], 1)).toThrow(/expected an object at "hooks"/);
    expect(() => doc(`null`).set(["x"], 1)).toThrow(/expected an object at "\(top level\)"/);
    expect(() => doc(`[1]`).append(["hooks", "E"], 1)).toThrow(/expected an object/);
    expect(() => doc(`{"hooks": {"E": {}}}`).append(["hooks", "E"], 1)).toThrow(/expected a list at "hooks.E"/);
  });
  test("a byte-order mark is refused like the hosts' own JSON.parse would", () => {
    expect(() => doc(`\uFEFF{"a": 1}`, "json")).toThrow(/f\.json:1:1/);
  });
});

test("duplicate keys: the document is refused up front, naming the key and both lines", () => {
  expect(() => doc(`{\n  "a": 1,\n  "a": 2\n}`)).toThrow(/:3:3: duplicate key "a" \(also on line 2\)/);
  expect(() => doc(`{"x": {"b": 1, "b": 2}}`)).toThrow(/duplicate key "b"/);
  expect(() => doc(`{"a": {"b": 1}, "c": {"b": 2}}`)).not.toThrow();
});

test("detectIndentUnit", () => {
  expect(detectIndentUnit(`{\n    "a": {\n        "b": 1\n    }\n}`)).toBe("    ");
  expect(detectIndentUnit(`{\n\t"a": 1\n}`)).toBe("\t");
  expect(detectIndentUnit(`{"a":1}`)).toBe("  ");
});

test("after any sequence of edits, the document reads exactly like the same text parsed afresh", () => {
  // Deep enough that edits go through lazy (not yet built) containers and shift the ones after them.
  let seed = 42;
  const r = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const keys = ["a", "b", "c", "d"];
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const paths = (v: unknown, at: (string | number)[] = []): (string | number)[][] => {
    if (!v || typeof v !== "object") return [at];
    const kids = Array.isArray(v)
      ? v.map((x, i) => paths(x, [...at, i]))
      : Object.entries(v).map(([k, x]) => paths(x, [...at, k]));
    return [at, ...kids.flat()];
  };
  for (let round = 0; round < 40; round++) {
    const start = { a: { b: { c: { d: [1, { a: 2 }] } }, c: [[1], [2, [3]]] }, b: "x", c: { a: { b: { c: {} } } } };
    const d = new JsonDoc(`${JSON.stringify(start, null, r() < 0.5 ? 2 : "\t")}\n`, "f.json", "jsonc");
    for (let step = 0; step < 12; step++) {
      const all = paths(d.value).filter((p) => p.length > 0);
      if (!all.length) break;
      const target = pick(all);
      const k = r();
      const v = d.get(target);
      const isObj = !!v && typeof v === "object" && !Array.isArray(v);
      if (k < 0.35 && isObj) d.set([...target, pick(keys)], { n: step, l: [step] });
      else if (k < 0.6) d.remove(target);
      else if (k < 0.8 && Array.isArray(v)) d.append(target, { s: step });
      else d.set(target, step);
      const fresh = new JsonDoc(d.text, "f.json", "jsonc");
      expect(d.value).toEqual(fresh.value);
      for (const p of paths(fresh.value)) expect(d.raw(p)).toBe(fresh.raw(p));
    }
  }
});

test("the fast scanner and jsonc-parser agree: same tree when the fast one accepts, never accepting what jsonc rejects", () => {
  let seed = 7;
  const r = () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const ws = () => pick(["", " ", "\n", "\t", "\r\n  ", " /* c */ ", " // c\n", "\u00a0", "\u2028"]);
  const scalars = [
    '"a"',
    '"é\\n\\u00e9"',
    '"tab\\t"',
    "0",
    "-1.5e3",
    "12",
    "true",
    "false",
    "null",
    '"\\x"',
    "01",
    "1.",
    "tru",
    '"a\u2028b"',
  ];
  const value = (d: number): string => {
    const k = r();
    if (d > 4 || k < 0.4) return pick(scalars);
    const n = Math.floor(r() * 4);
    const items = Array.from({ length: n }, (_, i) =>
      k < 0.7
        ? `${ws()}${pick(['"k"', `"k${i}"`, '"\\u006b"', "k"])}${ws()}:${ws()}${value(d + 1)}${ws()}`
        : `${ws()}${value(d + 1)}${ws()}`,
    );
    const trailing = n && r() < 0.15 ? "," : "";
    return k < 0.7 ? `{${items.join(",")}${trailing}${ws()}}` : `[${items.join(",")}${trailing}${ws()}]`;
  };
  let accepted = 0;
  for (let i = 0; i < 3000; i++) {
    const text = `${ws()}${value(0)}${ws()}`;
    for (const dialect of ["json", "json-comments", "jsonc"] as const) {
      const fast = shallowTreeBy("fast", text, dialect);
      if (fast === undefined) continue;
      accepted++;
      expect(shallowTreeBy("jsonc", text, dialect)).toEqual(fast);
    }
  }
  expect(accepted).toBeGreaterThan(1000);
});
