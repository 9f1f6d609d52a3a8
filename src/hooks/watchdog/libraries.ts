/**
 * The native watchdog libraries (watchdog.c, built by scripts/watchdog/build.sh), embedded in the
 * binary as files, and which of them this process can load: the one of the target the binary was
 * built for; from source, the ones of this OS and CPU.
 */
import darwinArm64 from "./darwin-arm64.dylib" with { type: "file" };
import darwinX64 from "./darwin-x64.dylib" with { type: "file" };
import linuxArm64 from "./linux-arm64.so" with { type: "file" };
import linuxX64 from "./linux-x64.so" with { type: "file" };
import linuxX64Musl from "./linux-x64-musl.so" with { type: "file" };
import windowsX64 from "./windows-x64.dll" with { type: "file" };

/** Defined by scripts/build.ts (`linux-x64`, `linux-x64-musl`, ...); absent when run from source. */
declare const COFFER_BUILD_TARGET: string | undefined;

const BY_TARGET: Record<string, string> = {
  "linux-x64": linuxX64,
  "linux-x64-musl": linuxX64Musl,
  "linux-arm64": linuxArm64,
  "darwin-x64": darwinX64,
  "darwin-arm64": darwinArm64,
  "windows-x64": windowsX64,
};

/** The libraries to try, in order (none on a platform without one: the worker watchdog then). */
export function watchdogLibraries(
  target: string | undefined = typeof COFFER_BUILD_TARGET === "string" ? COFFER_BUILD_TARGET : undefined,
): string[] {
  if (target) return BY_TARGET[target] ? [BY_TARGET[target]] : [];
  const os = process.platform === "win32" ? "windows" : process.platform;
  const mine = `${os}-${process.arch}`;
  // From source on Linux the C library is not known here: glibc's first, then musl's.
  return [BY_TARGET[mine], BY_TARGET[`${mine}-musl`]].filter((f): f is string => f !== undefined);
}
