/**
 * Mach-O code signatures, checked and (re)made without Apple's tools, so a Linux machine can
 * ship macOS binaries that launch. macOS kills a binary whose signature does not match its bytes.
 * Bun 1.4.4 signs its darwin-arm64 output ad hoc, but its darwin-x64 cross build keeps the
 * runtime's original signature, which no longer covers the appended program (upstream bug). The
 * ad-hoc signature made here has the layout Bun writes for arm64: one CodeDirectory (version
 * 0x20400, flags adhoc + linker-signed, SHA-256 of every 4 KiB page up to the signature).
 */
import { createHash } from "node:crypto";

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CS_ADHOC = 0x2;
const CS_LINKER_SIGNED = 0x20000;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const PAGE = 4096;
const CD_HEADER = 88; // CodeDirectory version 0x20400

type Segment = { name: string; cmdOffset: number; fileoff: number; filesize: number; vmsize: number };
type Layout = { segments: Segment[]; sigCmdOffset: number; dataoff: number; datasize: number };

function layout(buf: Buffer): Layout {
  if (buf.readUInt32LE(0) !== MH_MAGIC_64) throw new Error("not a 64-bit little-endian Mach-O file");
  const ncmds = buf.readUInt32LE(16);
  const segments: Segment[] = [];
  let sig: { at: number; dataoff: number; datasize: number } | undefined;
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(off);
    const size = buf.readUInt32LE(off + 4);
    if (cmd === LC_SEGMENT_64) {
      segments.push({
        name: buf.toString("latin1", off + 8, off + 24).replace(/\0+$/, ""),
        cmdOffset: off,
        vmsize: Number(buf.readBigUInt64LE(off + 32)),
        fileoff: Number(buf.readBigUInt64LE(off + 40)),
        filesize: Number(buf.readBigUInt64LE(off + 48)),
      });
    } else if (cmd === LC_CODE_SIGNATURE) {
      sig = { at: off, dataoff: buf.readUInt32LE(off + 8), datasize: buf.readUInt32LE(off + 12) };
    }
    off += size;
  }
  if (!sig) throw new Error("no LC_CODE_SIGNATURE load command");
  return { segments, sigCmdOffset: sig.at, dataoff: sig.dataoff, datasize: sig.datasize };
}

function pageHash(buf: Buffer, start: number, end: number): Buffer {
  return createHash("sha256").update(buf.subarray(start, end)).digest();
}

/** Whether the embedded signature's CodeDirectory covers the whole file up to the signature, page by page. */
export function verifyCodeSignature(buf: Buffer): { ok: true; identifier: string } | { ok: false; reason: string } {
  const { dataoff, datasize } = layout(buf);
  if (dataoff + datasize > buf.length) return { ok: false, reason: "signature runs past the end of the file" };
  if (buf.readUInt32BE(dataoff) !== CSMAGIC_EMBEDDED_SIGNATURE) return { ok: false, reason: "no embedded signature" };
  const count = buf.readUInt32BE(dataoff + 8);
  for (let k = 0; k < count; k++) {
    const type = buf.readUInt32BE(dataoff + 12 + 8 * k);
    const cd = dataoff + buf.readUInt32BE(dataoff + 16 + 8 * k);
    if (type !== 0 || buf.readUInt32BE(cd) !== CSMAGIC_CODEDIRECTORY) continue;
    const hashOffset = buf.readUInt32BE(cd + 16);
    const identOffset = buf.readUInt32BE(cd + 20);
    const nCode = buf.readUInt32BE(cd + 28);
    const codeLimit = buf.readUInt32BE(cd + 32);
    const hashSize = buf[cd + 36]!;
    const hashType = buf[cd + 37]!;
    const pageSize = 2 ** buf[cd + 39]!;
    const identifier = buf.toString("latin1", cd + identOffset, buf.indexOf(0, cd + identOffset));
    if (hashType !== 2 || hashSize !== 32) return { ok: false, reason: `hash type ${hashType} is not SHA-256` };
    if (codeLimit !== dataoff)
      return { ok: false, reason: `signs ${codeLimit} bytes, the signature starts at ${dataoff}` };
    if (nCode !== Math.ceil(codeLimit / pageSize)) return { ok: false, reason: "page count does not match" };
    for (let p = 0; p < nCode; p++) {
      const want = buf.subarray(cd + hashOffset + p * 32, cd + hashOffset + (p + 1) * 32);
      if (!pageHash(buf, p * pageSize, Math.min((p + 1) * pageSize, codeLimit)).equals(want))
        return { ok: false, reason: `page ${p} does not match its hash` };
    }
    return { ok: true, identifier };
  }
  return { ok: false, reason: "no CodeDirectory" };
}

/** The file re-signed ad hoc: load commands adjusted, every page hashed, the old signature replaced. */
export function adhocSign(input: Buffer, identifier: string): Buffer {
  const { segments, sigCmdOffset, dataoff } = layout(input);
  const text = segments.find((s) => s.name === "__TEXT");
  const linkedit = segments.find((s) => s.name === "__LINKEDIT");
  if (!text || !linkedit) throw new Error("no __TEXT or __LINKEDIT segment");
  if (dataoff % 16 !== 0) throw new Error("signature offset is not 16-byte aligned");
  const ident = Buffer.from(`${identifier}\0`, "latin1");
  const nCode = Math.ceil(dataoff / PAGE);
  const cdLength = CD_HEADER + ident.length + nCode * 32;
  const blobLength = 12 + 8 + cdLength; // SuperBlob header, one index entry, the CodeDirectory
  const sigSize = Math.ceil(blobLength / 16) * 16;

  const out = Buffer.alloc(dataoff + sigSize);
  input.copy(out, 0, 0, dataoff);
  // The load commands are inside page 0: fix them before hashing.
  out.writeUInt32LE(sigSize, sigCmdOffset + 12);
  const linkeditSize = dataoff + sigSize - linkedit.fileoff;
  out.writeBigUInt64LE(BigInt(linkeditSize), linkedit.cmdOffset + 48);
  if (linkedit.vmsize < linkeditSize)
    out.writeBigUInt64LE(BigInt(Math.ceil(linkeditSize / 0x4000) * 0x4000), linkedit.cmdOffset + 32);

  let o = dataoff;
  out.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, o);
  out.writeUInt32BE(blobLength, o + 4);
  out.writeUInt32BE(1, o + 8);
  out.writeUInt32BE(0, o + 12); // slot: CodeDirectory
  out.writeUInt32BE(20, o + 16);
  o += 20;
  const cd = o;
  out.writeUInt32BE(CSMAGIC_CODEDIRECTORY, cd);
  out.writeUInt32BE(cdLength, cd + 4);
  out.writeUInt32BE(0x20400, cd + 8);
  out.writeUInt32BE(CS_ADHOC | CS_LINKER_SIGNED, cd + 12);
  out.writeUInt32BE(CD_HEADER + ident.length, cd + 16); // hashOffset
  out.writeUInt32BE(CD_HEADER, cd + 20); // identOffset
  out.writeUInt32BE(0, cd + 24); // nSpecialSlots
  out.writeUInt32BE(nCode, cd + 28);
  out.writeUInt32BE(dataoff, cd + 32); // codeLimit
  out[cd + 36] = 32; // hashSize
  out[cd + 37] = 2; // SHA-256
  out[cd + 38] = 0; // platform
  out[cd + 39] = 12; // log2(4096)
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64 stay 0
  out.writeBigUInt64BE(BigInt(text.fileoff), cd + 64); // execSegBase
  out.writeBigUInt64BE(BigInt(text.filesize), cd + 72); // execSegLimit
  out.writeBigUInt64BE(BigInt(CS_EXECSEG_MAIN_BINARY), cd + 80); // execSegFlags
  ident.copy(out, cd + CD_HEADER);
  const hashes = cd + CD_HEADER + ident.length;
  for (let p = 0; p < nCode; p++) pageHash(out, p * PAGE, Math.min((p + 1) * PAGE, dataoff)).copy(out, hashes + p * 32);
  return out;
}
