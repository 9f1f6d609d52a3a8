/**
 * Proposals for the team lane (issue 28): distillation never writes into a repository's
 * `.coffer/`. An insight the model marks `team` is written to the personal project scope as any
 * other, and `inbox/team-<id>.json` names it until someone decides: approve (inside that
 * repository: `coffer promote` moves it into `.coffer/entries/`) or reject (it stays personal).
 */
import * as v from "valibot";
import { CofferError } from "../lib/errors";
import { handle } from "../lib/handle";
import { isoNow } from "../lib/time";
import { ulid } from "../lib/ulid";
import { audit } from "../scrub/write";
import {
  closeStore,
  type Entry,
  findEntry,
  openProjectStore,
  type ProjectRef,
  type PromoteResult,
  promote,
  requireTeam,
  type Store,
} from "../store";
import { ITEM_ID, ITEM_PROJECT, inboxFiles, itemProject } from "./files";

const TeamProposalSchema = v.object({
  version: v.literal(1),
  kind: v.literal("team"),
  id: ITEM_ID,
  created: v.string(),
  host: v.string(),
  session: v.string(),
  project: ITEM_PROJECT,
  /** The personal project entry proposed (its text is the entry's own, read when shown). */
  entry: v.object({ id: v.string(), title: v.string(), kind: v.string() }),
});
export type TeamProposal = v.InferOutput<typeof TeamProposalSchema>;

const proposals = inboxFiles("team-", TeamProposalSchema);

/** Every readable proposal, oldest first. */
export const listTeamProposals = proposals.list;
/** A proposal by id, or 4+ of its first or last characters (its handle) when unique. */
export const findTeamProposal = proposals.find;

/**
 * Queue a proposal for an entry just written to `project`'s personal scope; an entry already
 * proposed keeps its one proposal. Returns the proposal's id.
 */
export function proposeForTeam(
  project: ProjectRef,
  entry: TeamProposal["entry"],
  origin: { host: string; session: string },
): string {
  const queued = listTeamProposals().find((p) => p.project.id === project.id && p.entry.id === entry.id);
  if (queued) return queued.id;
  const proposal: TeamProposal = {
    version: 1,
    kind: "team",
    id: ulid(),
    created: isoNow(),
    host: origin.host,
    session: origin.session,
    project: itemProject(project),
    entry,
  };
  proposals.write(proposal);
  audit({ event: "team_proposed", actor: `agent:${origin.host}`, id: proposal.id, entry: entry.id });
  return proposal.id;
}

/** Keep the entry personal: the proposal is dropped. */
export function rejectTeamProposal(p: TeamProposal): void {
  proposals.remove(p.id);
  audit({ event: "team_proposal_rejected", actor: "user", id: p.id, entry: p.entry.id });
}

export type TeamApproval = {
  id: string;
  /**
   * promoted/duplicate: as `coffer promote` says (`promoted` holds its result); gone: the entry is no
   * longer in the personal scope (forgotten); already_team: it was promoted meanwhile. The proposal is
   * removed in every case.
   */
  status: PromoteResult["status"] | "gone" | "already_team";
  /** The proposed entry's id. */
  entry: string;
  promoted?: PromoteResult;
};

/**
 * Promote the proposed entry into `store`'s team lane, which must be the proposal's repository
 * (the team lane is a checkout's `.coffer/`, so only a store opened inside one can write it).
 */
export function approveTeamProposal(store: Store, p: TeamProposal): TeamApproval {
  if (store.project?.id !== p.project.id)
    throw new CofferError(
      `proposal ${handle(p.id)} is for repository ${p.project.label}, and ${store.cwd} is ${store.project ? `in ${store.project.label}` : "not inside a git repository"}`,
      1,
      `cd into your checkout of ${p.project.label}${p.project.origin ? ` (${p.project.origin})` : ""} and run: coffer inbox approve ${handle(p.id)}`,
    );
  const team = requireTeam(store);
  const hit = findEntry(store, p.entry.id, { scopes: [store.project.id, team.key] });
  if (!hit || hit.scope === team.key) {
    const status = hit ? "already_team" : "gone";
    proposals.remove(p.id);
    audit({ event: "team_proposal_dropped", actor: "user", id: p.id, entry: p.entry.id, reason: status });
    return { id: p.id, status, entry: p.entry.id };
  }
  const promoted = promote(store, p.entry.id, "user");
  proposals.remove(p.id);
  audit({ event: "team_proposal_approved", actor: "user", id: p.id, entry: promoted.team_id });
  return { id: p.id, status: promoted.status, entry: p.entry.id, promoted };
}

/** The proposed entry as it is now in its project's personal scope, or undefined when it is gone. */
export function proposedEntry(p: TeamProposal): Entry | undefined {
  const store = openProjectStore(p.project);
  try {
    return findEntry(store, p.entry.id, { scopes: [p.project.id] })?.entry;
  } finally {
    closeStore(store);
  }
}
