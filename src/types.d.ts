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
