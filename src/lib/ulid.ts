const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
let lastTime = -1;
let lastRandom: number[] = [];

/** A monotonic ULID: 48-bit ms timestamp + 80 random bits, sortable by creation time. */
export function ulid(now = Date.now()): string {
  let rand: number[];
  if (now === lastTime) {
    rand = lastRandom.slice();
    for (let i = rand.length - 1; i >= 0; i--) {
      if (rand[i]! < 31) {
        rand[i]!++;
        break;
      }
      rand[i] = 0;
    }
  } else {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    rand = Array.from({ length: 16 }, (_, i) => bytes[i]! & 31);
  }
  lastTime = now;
  lastRandom = rand;
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + rand.map((n) => CROCKFORD[n]).join("");
}

export const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
