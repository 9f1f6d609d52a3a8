import { defineCommand } from "citty";
import { CofferError } from "../lib/errors";

// Placeholder until this command's issue lands; replaced wholesale by its implementation.
export default defineCommand({
  meta: { name: "distill", description: "(not available yet)" },
  run() {
    throw new CofferError("coffer distill is not available in this build yet");
  },
});
