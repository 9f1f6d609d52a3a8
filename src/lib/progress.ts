/** A one-line progress bar on stderr when it is a TTY; silent on a pipe. */
export function progressBar(label: string, total: number) {
  const tty = Boolean(process.stderr.isTTY) && total > 0;
  let last = -1;
  return {
    tick(done: number) {
      if (!tty) return;
      const pct = Math.floor((done / total) * 100);
      if (pct === last) return;
      last = pct;
      const width = 30;
      const fill = Math.round((done / total) * width);
      process.stderr.write(`\r${label} [${"#".repeat(fill)}${" ".repeat(width - fill)}] ${pct}% ${done}/${total}`);
    },
    done() {
      if (tty) process.stderr.write("\r\x1b[K");
    },
  };
}
