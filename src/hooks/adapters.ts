/** Every host's hook adapter, loaded eagerly (for surfaces other than the hook path). */

import { adapter as claude } from "../hosts/claude/hook";
import { adapter as codex } from "../hosts/codex/hook";
import { adapter as cursor } from "../hosts/cursor/hook";
import { adapter as gemini } from "../hosts/gemini/hook";
import { adapter as opencode } from "../hosts/opencode/hook";
import { adapter as windsurf } from "../hosts/windsurf/hook";
import type { Host } from "../store/config";
import type { HostAdapter } from "./types";

export const HOOK_ADAPTERS: Record<Host, HostAdapter> = { claude, codex, gemini, cursor, windsurf, opencode };
