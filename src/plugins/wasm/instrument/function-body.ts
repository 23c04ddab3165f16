import { emitBody } from "./body-emitter.ts";
import { type Instruction, Kind, newInstruction, readInstruction, skipValType } from "./instructions.ts";
import { type ByteReader, ByteWriter } from "./leb128.ts";
import type { BodyEdits, Metering, Renumbering } from "./plan.ts";

/**
 * The instrumentation of one function body (units and placement: FUEL.md in this folder).
 * - "full": the body is cut into straight-line segments — a segment starts at the function's entry, at a loop
 *   header, in each arm of an `if`, at a legacy `catch`, after a conditional branch, and after an `end` that a
 *   branch can reach — and each live segment charges its cost when it starts.
 * - "interrupt": only the function's entry and each loop header charge: the cost of every instruction of the body
 *   (or of the loop body) outside nested loops, an upper bound of the work done before the next check.
 * - Both check at the function's entry and at each loop header, so no code runs long without reaching a check.
 * - call / return_call / ref.func indices of defined functions move up one (the import added before them), and
 *   so do global.get / global.set indices of defined globals.
 */

const FRAME_BLOCK = 0;
const FRAME_LOOP = 1;
const FRAME_JOIN = 2; // if and legacy try: their end always joins paths
const TRY = 0x06;
const TRY_TABLE = 0x1f;

/** Reused between bodies (one instrumentation runs at a time on a thread). */
const ins: Instruction = newInstruction();
const scratch = new ByteWriter(64 * 1024);

export function instrumentBody(r: ByteReader, out: ByteWriter, map: Renumbering, metering: Metering): void {
  const full = metering === "full";
  const bodyStart = r.pos;
  const localGroups = r.u32();
  for (let i = 0; i < localGroups; i++) {
    r.u32();
    skipValType(r);
  }
  const codeStart = r.pos;
  const edits: BodyEdits = { insAt: [], insCost: [], insCheck: [], fixStart: [], fixEnd: [], fixValue: [] };
  const { insAt, insCost, insCheck } = edits;
  const frames: number[] = [];
  const targeted: boolean[] = [];

  // "full": the open segment
  let segAt = codeStart;
  let segCost = 0;
  let segCheck = true;
  let live = true;
  const close = () => {
    if (!full) return;
    if (segCheck || (live && segCost > 0)) {
      insAt.push(segAt);
      insCost.push(segCost);
      insCheck.push(segCheck);
    }
  };
  const open = (check: boolean, isLive: boolean) => {
    segAt = r.pos;
    segCost = 0;
    segCheck = check;
    live = isLive;
  };
  // "interrupt": per open scope (the function, then each loop), its charge's slot and its cost so far
  const scopeSlot: number[] = [];
  const scopeCost: number[] = [];
  const openScope = () => {
    scopeSlot.push(insAt.length);
    scopeCost.push(0);
    insAt.push(r.pos);
    insCost.push(0);
    insCheck.push(true);
  };
  const closeScope = () => {
    insCost[scopeSlot.pop()!] = Math.max(1, scopeCost.pop()!);
  };
  if (!full) openScope();

  const target = (label: number) => {
    const at = frames.length - 1 - label;
    if (at >= 0) targeted[at] = true;
  };
  const fix = (value: number) => {
    edits.fixStart.push(ins.indexStart);
    edits.fixEnd.push(ins.indexEnd);
    edits.fixValue.push(value);
  };

  for (;;) {
    if (r.atEnd()) r.fail("function body ends before its final `end`");
    readInstruction(r, ins);
    if (full) segCost += ins.cost;
    else scopeCost[scopeCost.length - 1]! += ins.cost;
    switch (ins.kind) {
      case Kind.block: {
        const opcode = r.bytes[ins.at];
        // a try_table's catch clauses branch to labels counted from outside it (the try_table is not one)
        if (opcode === TRY_TABLE) for (const label of ins.labels) target(label);
        frames.push(opcode === TRY ? FRAME_JOIN : FRAME_BLOCK);
        targeted.push(false);
        break;
      }
      case Kind.loop:
        close();
        frames.push(FRAME_LOOP);
        targeted.push(false);
        open(true, live);
        if (!full) openScope();
        break;
      case Kind.if:
        close();
        frames.push(FRAME_JOIN);
        targeted.push(false);
        open(false, true);
        break;
      case Kind.else:
      case Kind.catch:
        close();
        open(false, true);
        break;
      case Kind.end: {
        if (frames.length === 0) {
          close();
          if (!full) closeScope();
          if (!r.atEnd()) r.fail("bytes after a function body's final `end`");
          emitBody(r.bytes, bodyStart, codeStart, r.pos, edits, map, scratch, out);
          return;
        }
        const kind = frames.pop()!;
        const joined = targeted.pop()!;
        if (kind === FRAME_LOOP && !full) closeScope();
        if (kind === FRAME_JOIN || (kind === FRAME_BLOCK && joined)) {
          close();
          open(false, true);
        }
        break;
      }
      case Kind.delegate:
        frames.pop();
        targeted.pop();
        close();
        open(false, true);
        break;
      case Kind.br:
        target(ins.label);
        close();
        open(false, false);
        break;
      case Kind.brIf:
        target(ins.label);
        close();
        open(false, live);
        break;
      case Kind.brTable:
        for (const label of ins.labels) target(label);
        close();
        open(false, false);
        break;
      case Kind.exit:
        close();
        open(false, false);
        break;
      case Kind.call:
      case Kind.refFunc:
        if (ins.index >= map.importedFunctions) fix(ins.index + 1);
        break;
      case Kind.returnCall:
        if (ins.index >= map.importedFunctions) fix(ins.index + 1);
        close();
        open(false, false);
        break;
      case Kind.global:
        if (ins.index >= map.importedGlobals) fix(ins.index + 1);
        break;
    }
  }
}
