/** Files embedded in the binary (`import path from "./x.bin" with { type: "file" }`): their path. */
declare module "*.bin" {
  const path: string;
  export default path;
}

/** Text data embedded in the binary (`import path from "./x.txt" with { type: "file" }`): its path. */
declare module "*.txt" {
  const path: string;
  export default path;
}

/** Native libraries embedded in the binary (src/hooks/watchdog/): their path. */
declare module "*.so" {
  const path: string;
  export default path;
}
declare module "*.dylib" {
  const path: string;
  export default path;
}
declare module "*.dll" {
  const path: string;
  export default path;
}
