/**
 * One spacing scale and one type scale in the web UI (issue 29): every margin, padding, gap and
 * font size in style.css is one of the scale's variables (or 0, auto, a multiple of the scale).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const CSS = readFileSync(join(import.meta.dir, "..", "..", "src", "web", "app", "style.css"), "utf8");

const declarations = (props: RegExp) =>
  [...CSS.matchAll(/^\s*([a-z-]+):\s*([^;]+);/gm)]
    .filter((m) => props.test(m[1]!))
    .map((m) => [m[1]!, m[2]!.trim()] as const);

test("spacing: margins, paddings and gaps are on the scale", () => {
  const scale = new Set(["--s1", "--s2", "--s3", "--s4", "--s5", "--s6"]);
  const spacing = declarations(/^(margin|padding|gap|row-gap|column-gap)(-(top|right|bottom|left))?$/);
  expect(spacing.length).toBeGreaterThan(30);
  const off = spacing.filter(([, value]) =>
    value
      .replace(/calc\(var\((--s\d)\) \* [\d.]+\)/g, "var($1)")
      .split(/\s+/)
      .some((v) => !(v === "0" || v === "auto" || (/^var\((--s\d)\)$/.test(v) && scale.has(/--s\d/.exec(v)![0])))),
  );
  expect(off).toEqual([]);
});

test("type: font sizes are on the scale", () => {
  const sizes = declarations(/^font-size$/);
  expect(sizes.length).toBeGreaterThan(10);
  expect(sizes.filter(([, v]) => !/^var\(--t-(xs|sm|md|lg|xl)\)$/.test(v))).toEqual([]);
  // The body's shorthand too.
  expect(CSS).toMatch(/font:\s*var\(--t-md\) \/ 1\.45/);
});
