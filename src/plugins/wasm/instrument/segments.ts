import { type BodyEdits, Insert } from "./plan.ts";

/**
 * Where one function body's charges go (FUEL.md in this folder): its straight-line segments in order, each with
 * the instructions it charges, and the control frames that decide where segments start.
 *
 * A segment after the `end` of a frame that no branch leaves early (no branch to a label outside it, no return,
 * no throw) is not charged where it starts: every execution of the segment that was open when the frame began
 * reaches it, so its cost is added to that segment ("merged"), and the join point after a diamond or a block stays
 * free of instrumentation, which keeps JavaScriptCore's optimizer effective there. Fuel stays exact for every call
 * that returns; a trap or an exception unwinding the frame may leave merged units charged but not executed.
 */
export class SegmentPlan {
  private readonly at: number[] = [];
  private readonly kind: Insert[] = [];
  private readonly cost: number[] = [];
  private readonly live: boolean[] = [];
  /** Merged: the slot this one's cost goes to; -1 for a slot charged where it starts. */
  private readonly into: number[] = [];
  /** Loop headers of loops that call nothing (their check must read the flag at an alternating address). */
  private readonly alternate: boolean[] = [];
  /** For a loop header slot: the offset of its `loop` instruction. */
  private readonly loopAt: number[] = [];
  /** Slot the current instructions are charged to (the open segment, or the one it merged into). */
  private target = -1;

  /** Open a segment at byte offset `at`; `into` merges it into an earlier slot; `loopAt` for a loop header. */
  open(at: number, kind: Insert, live: boolean, into = -1, loopAt = -1): void {
    const slot = this.at.length;
    this.at.push(at);
    this.kind.push(kind);
    this.cost.push(0);
    this.live.push(live);
    this.into.push(into);
    this.alternate.push(false);
    this.loopAt.push(loopAt);
    this.target = into >= 0 ? into : slot;
  }

  /** The slot a loop opened now gets (for `alternateFlag` at its end). */
  nextSlot(): number {
    return this.at.length;
  }

  /**
   * The loop whose header is `slot` calls nothing. A compiler may hoist a load it sees no write to out of such a
   * loop, so its check reads the flag at an address that changes every iteration; a loop that calls (anything
   * may write memory in a call) keeps the cheaper constant address.
   */
  alternateFlag(slot: number): void {
    this.alternate[slot] = true;
  }

  /** Whether some kept loop header needs an alternating address. */
  anyAlternate(): boolean {
    return this.alternate.some((a, slot) => a && this.into[slot] === -1);
  }

  add(cost: number): void {
    this.cost[this.target]! += cost;
  }

  /** The slot a frame opened now would merge its after-`end` segment into. */
  owner(): number {
    return this.target;
  }

  /** Whether the current instructions are reachable (dead code after br, return, unreachable needs no charge). */
  isLive(): boolean {
    return this.live[this.at.length - 1]!;
  }

  /**
   * The charges into `edits`: entries (checking when the function calls) and loop headers always — with their
   * cost under "full" metering —, live segments with a cost and not merged under "full"; "interrupt" keeps entries
   * of calling functions and loop headers only.
   */
  toEdits(edits: BodyEdits, full: boolean, calls: boolean): void {
    for (let slot = 0; slot < this.at.length; slot++) {
      const kind = this.kind[slot]!;
      if (this.into[slot]! >= 0) continue;
      if (kind === Insert.segment && (!full || !this.live[slot] || this.cost[slot] === 0)) continue;
      if (kind === Insert.entry && !full && !calls) continue;
      edits.chargeAt.push(this.at[slot]!);
      edits.chargeKind.push(kind);
      edits.chargeCost.push(full ? this.cost[slot]! : 0);
      edits.chargeCheck.push(kind === Insert.loop || (kind === Insert.entry && calls));
      edits.chargeAlternate.push(this.alternate[slot]!);
      if (!full && this.alternate[slot]) edits.tickResetAt.push(this.loopAt[slot]!);
    }
  }
}

export const Frame = { block: 0, loop: 1, if: 2, try: 3 } as const;
export type Frame = (typeof Frame)[keyof typeof Frame];

/** The open control frames of a body: kind, whether a branch targets its end, whether a branch leaves it early. */
export class FrameStack {
  private readonly kind: Frame[] = [];
  private readonly targeted: boolean[] = [];
  private readonly escapes: boolean[] = [];
  private readonly owner: number[] = [];
  /** For a loop frame: its header's slot, and whether a call is inside it. */
  private readonly slot: number[] = [];
  private readonly calls: boolean[] = [];

  get depth(): number {
    return this.kind.length;
  }

  push(kind: Frame, owner: number, slot = -1): void {
    this.kind.push(kind);
    this.targeted.push(false);
    this.escapes.push(false);
    this.owner.push(owner);
    this.slot.push(slot);
    this.calls.push(false);
  }

  /** Close the innermost frame. */
  pop(): { kind: Frame; targeted: boolean; escapes: boolean; owner: number; slot: number; calls: boolean } {
    return {
      kind: this.kind.pop()!,
      targeted: this.targeted.pop()!,
      escapes: this.escapes.pop()!,
      owner: this.owner.pop()!,
      slot: this.slot.pop()!,
      calls: this.calls.pop()!,
    };
  }

  /** A call: every open frame contains one. */
  call(): void {
    this.calls.fill(true);
  }

  /** A branch to `label`: its target's end is a join; every frame inside the target is left early. */
  branch(label: number): void {
    const at = this.kind.length - 1 - label;
    if (at >= 0) this.targeted[at] = true;
    for (let k = Math.max(0, at + 1); k < this.kind.length; k++) this.escapes[k] = true;
  }

  /** A return, throw or tail call: every frame is left early. */
  leaveAll(): void {
    this.escapes.fill(true);
  }

  /** Whether `label` is the function's own (a branch to it returns). */
  isFunctionLabel(label: number): boolean {
    return label === this.kind.length;
  }
}
