/** A piece of the input to replace. Lower rank wins the family name when spans overlap. */
export type Span = {
  start: number;
  end: number;
  family: string;
  rank: number;
  /** Replacement text; `[redacted]` when absent ("" for `<private>` spans). */
  with?: string;
};

export type Found = { family: string; count: number };

export type ScrubResult = {
  text: string;
  /** Secrets removed, per family (provider name, or password/token/secret/key/... for generic ones). */
  found: Found[];
  /** Total number of redactions (sum of `found` counts). */
  redactions: number;
};
