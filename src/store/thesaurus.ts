/**
 * The learned thesaurus: for the most frequent words of public software documentation, their
 * nearest neighbours in word vectors trained on it (scripts/vectors/ builds it; SOURCES.md lists
 * what it learned from), embedded in the binary as thesaurus.bin. A hook reads only the rows of
 * its prompt's words: the file is a hash table, and `loadNeighbours` reads the bucket offsets of
 * those words, then their buckets (a few hundred bytes each), never the whole table.
 *
 * Layout (little-endian): "CTH1", u32 buckets, u32 words, u32 reserved; u32 offsets[buckets + 1]
 * into the data that follows; data: per bucket, lines "<word>\t<neighbour> <similarity x 100> ...\n"
 * sorted by word, best neighbour first. A word's bucket is crc32(word) % buckets.
 */
import tablePath from "./thesaurus.bin" with { type: "file" };

export type Neighbour = { word: string; similarity: number };

const MAGIC = 0x31485443; // "CTH1"
const HEADER = 16;

/** The table as written by scripts/vectors/table.ts (the same layout). */
export function encodeThesaurus(rows: Map<string, Neighbour[]>, buckets: number): Uint8Array {
  const lines: string[][] = Array.from({ length: buckets }, () => []);
  for (const word of [...rows.keys()].sort()) {
    const list = rows.get(word)!;
    if (!list.length) continue;
    const cells = list.map((n) => `${n.word} ${Math.round(n.similarity * 100)}`).join(" ");
    lines[Bun.hash.crc32(word) % buckets]!.push(`${word}\t${cells}\n`);
  }
  const encoder = new TextEncoder();
  const data = lines.map((l) => encoder.encode(l.join("")));
  const size = data.reduce((s, d) => s + d.length, 0);
  const out = new Uint8Array(HEADER + 4 * (buckets + 1) + size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, buckets, true);
  view.setUint32(
    8,
    lines.reduce((s, l) => s + l.length, 0),
    true,
  );
  let offset = 0;
  let at = HEADER + 4 * (buckets + 1);
  data.forEach((d, b) => {
    view.setUint32(HEADER + 4 * b, offset, true);
    out.set(d, at);
    at += d.length;
    offset += d.length;
  });
  view.setUint32(HEADER + 4 * buckets, offset, true);
  return out;
}

/** Per table file: its header, and the neighbours read so far by word (an empty list: none). */
const tables = new Map<string, { header?: { buckets: number; data: number }; known: Map<string, Neighbour[]> }>();
const tableOf = (path: string) => {
  const t = tables.get(path) ?? { known: new Map<string, Neighbour[]>() };
  tables.set(path, t);
  return t;
};

function parseRow(line: string): Neighbour[] {
  const cells = line.split(" ");
  const out: Neighbour[] = [];
  for (let i = 0; i + 1 < cells.length; i += 2) out.push({ word: cells[i]!, similarity: Number(cells[i + 1]) / 100 });
  return out;
}

/**
 * Read the rows of `words` from the table (those not read before), so that `neighbours` can
 * answer them synchronously. Two small reads per call: the words' bucket offsets, then their buckets.
 */
export async function loadNeighbours(words: Iterable<string>, path: string = tablePath): Promise<void> {
  const table = tableOf(path);
  const known = table.known;
  const wanted = [...new Set(words)].filter((w) => !known.has(w));
  if (!wanted.length) return;
  const file = Bun.file(path);
  if (!table.header) {
    const head = new DataView((await file.slice(0, HEADER).arrayBuffer()) as ArrayBuffer);
    if (head.byteLength < HEADER || head.getUint32(0, true) !== MAGIC) {
      for (const w of wanted) known.set(w, []);
      return;
    }
    const buckets = head.getUint32(4, true);
    table.header = { buckets, data: HEADER + 4 * (buckets + 1) };
  }
  const { buckets, data } = table.header;
  const byBucket = new Map<number, string[]>();
  for (const w of wanted) {
    const b = Bun.hash.crc32(w) % buckets;
    byBucket.set(b, [...(byBucket.get(b) ?? []), w]);
  }
  await Promise.all(
    [...byBucket].map(async ([b, ws]) => {
      const offsets = new DataView(await file.slice(HEADER + 4 * b, HEADER + 4 * b + 8).arrayBuffer());
      const text = await file.slice(data + offsets.getUint32(0, true), data + offsets.getUint32(4, true)).text();
      for (const line of text.split("\n")) {
        const tab = line.indexOf("\t");
        const w = line.slice(0, tab);
        if (tab > 0 && ws.includes(w)) known.set(w, parseRow(line.slice(tab + 1)));
      }
      for (const w of ws) if (!known.has(w)) known.set(w, []);
    }),
  );
}

/** A word's learned neighbours, best first, if `loadNeighbours` read its row (else undefined). */
export function neighbours(word: string, path: string = tablePath): Neighbour[] | undefined {
  return tables.get(path)?.known.get(word);
}
