/**
 * The Markdown entries are written in, shown as such: `code`, **strong**, *emphasis*, [links](https://…)
 * in titles and snippets; also paragraphs, lists, headings and fenced code in bodies. Built as DOM
 * nodes from text (never innerHTML); anything else stays as written.
 */
import { h } from "./lib";

type Inline = Node | string;

const INLINE =
  /`([^`\n]+)`|\*\*([^*\n]+?)\*\*|(?<![\w*])\*([^*\s][^*\n]*?)\*(?![\w*])|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

/** One line of Markdown as inline nodes: code spans, strong, emphasis and http(s) links. */
export function inlineMd(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(h("code", {}, m[1]));
    else if (m[2] !== undefined) out.push(h("strong", {}, ...inlineMd(m[2])));
    else if (m[3] !== undefined) out.push(h("em", {}, ...inlineMd(m[3])));
    else out.push(h("a", { href: m[5]!, rel: "noopener noreferrer", target: "_blank" }, m[4]!));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const LIST = /^\s*(?:[-*+]|\d+[.)])\s+/;

/** A body as blocks: fenced code, headings (shown small), lists and paragraphs of inline Markdown. */
export function blockMd(text: string): HTMLElement[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: HTMLElement[] = [];
  let para: string[] = [];
  let list: { ordered: boolean; items: string[] } | undefined;
  const flush = () => {
    if (para.length) out.push(h("p", {}, ...inlineMd(para.join(" "))));
    para = [];
    if (list)
      out.push(
        h(
          list.ordered ? "ol" : "ul",
          {},
          list.items.map((i) => h("li", {}, ...inlineMd(i))),
        ),
      );
    list = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) code.push(lines[i]!);
      out.push(h("pre", {}, h("code", {}, code.join("\n"))));
      continue;
    }
    const heading = /^\s*#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      out.push(h("p", {}, h("strong", {}, ...inlineMd(heading[1]!))));
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const item = LIST.exec(line);
    if (item) {
      const ordered = /\d/.test(item[0]);
      if (para.length || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(line.slice(item[0].length));
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    if (list) flush();
    para.push(line.trim());
  }
  flush();
  return out;
}
