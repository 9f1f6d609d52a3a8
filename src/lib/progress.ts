import { isTerminal, writeErr } from "./output";
/** A one-line progress bar on stderr when it is a TTY; silent on a pipe. */
export function progressBar(label: string, total: number) {
  const tty = Boolean(isTerminal(2)) && total > 0;
  let last = -1;
  return {
    tick(done: number) {
      if (!tty) return;
      const pct = Math.floor((done / total) * 100);
      if (pct === last) return;
      last = pct;
      const width = 30;
      const fill = Math.round((done / total) * width);
      writeErr(`\r${label} [${"#".repeat(fill)}${" ".repeat(width - fill)}] ${pct}% ${done}/${total}`);
    },
    done() {
      if (tty) writeErr("\r\x1b[K");
    },
  };
}
