// Bun.CryptoHasher, not node:crypto: loading node:crypto costs ~5 ms per process on the hook path.
export function sha256(data: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Crockford base32 of a byte string, most significant bits first, padded to whole 5-bit groups. */
export function crockford32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  // Left-pad so the encoding is right-aligned like a ULID: 128 bits -> 26 chars.
  const total = bytes.length * 8;
  const pad = (5 - (total % 5)) % 5;
  bits = pad;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}
