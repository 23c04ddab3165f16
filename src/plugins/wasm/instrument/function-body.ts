import { emitBody } from "./body-emitter.ts";
import { type Instruction, Kind, newInstruction, readInstruction, skipValType } from "./instructions.ts";
import { type ByteReader, ByteWriter } from "./leb128.ts";
import { type BodyEdits, type FrameMode, Insert, type Layout, type Metering } from "./plan.ts";
import { Frame, FrameStack, SegmentPlan } from "./segments.ts";

/**
 * The instrumentation of one function body (FUEL.md in this folder).
 * - Every loop header, and the entry of every function that calls (the only way to run long without a loop is
 *   recursion), checks: it reads the interrupt flag and traps when the host raised it.
 * - "full" metering also cuts the body into straight-line segments — one starts at the function's entry, at a
 *   loop header, in each arm of an `if`, at a legacy `catch`, after a conditional branch, and after an `end` a
 *   branch can reach — and each charges its instructions when it starts (segments.ts merges some); the checks
 *   also trap when fuel is below zero. Fuel lives in a local between calls ("local" frame mode), or in the global
 *   in a function with exception handlers ("global").
 * - global.get / global.set indices of defined globals move up one when the fuel global is imported.
 */

const OP_UNREACHABLE = 0x00;
const OP_RETURN = 0x0f;
const OP_TRY = 0x06;
const OP_CATCH = 0x07;
const OP_DELEGATE = 0x18;
const OP_CATCH_ALL = 0x19;
const OP_TRY_TABLE = 0x1f;
/** call, call_indirect, return_call, return_call_indirect, call_ref, return_call_ref */
const isCall = (op: number) => op >= 0x10 && op <= 0x15;
const isReturnCall = (op: number) => op === 0x12 || op === 0x13 || op === 0x15;
/** throw, rethrow, throw_ref */
const isThrow = (op: number) => op === 0x08 || op === 0x09 || op === 0x0a;
const handlesExceptions = (op: number) =>
  op === OP_TRY || op === OP_TRY_TABLE || op === OP_CATCH || op === OP_CATCH_ALL || op === OP_DELEGATE;

/** Reused between bodies (one instrumentation runs at a time on a thread). */
const ins: Instruction = newInstruction();
const scratch = new ByteWriter(64 * 1024);

interface BodyStart {
  bodyStart: number;
  codeStart: number;
  /** Parameters and declared locals: the index of an added local. */
  locals: number;
}

/**
 * Instrument one body (`r` over it, from its locals) into `out`, size-prefixed. `params` is the function's
 * parameter count (the added local's index follows params and declared locals).
 */
export function instrumentBody(r: ByteReader, out: ByteWriter, map: Layout, metering: Metering, params: number): void {
  const bodyStart = r.pos;
  const localGroups = r.u32();
  let locals = params;
  for (let i = 0; i < localGroups; i++) {
    locals += r.u32();
    skipValType(r);
  }
  const body = { bodyStart, codeStart: r.pos, locals };
  if (metering === "interrupt") {
    walk(r, out, map, "none", body);
    return;
  }
  // the cached local is wrong where an exception can be caught: such a function (rare) is walked again in "global"
  if (!walk(r, out, map, "local", body)) {
    r.pos = body.codeStart;
    walk(r, out, map, "global", body);
  }
}

function newEdits(mode: FrameMode): BodyEdits {
  return {
    mode,
    local: -1,
    chargeAt: [],
    chargeKind: [],
    chargeCost: [],
    chargeCheck: [],
    chargeAlternate: [],
    tickResetAt: [],
    tickLocal: -1,
    storeAt: [],
    reloadAt: [],
    fixStart: [],
    fixEnd: [],
    fixValue: [],
  };
}

/** One pass over the instructions; false (nothing written) when "local" mode meets an exception handler. */
function walk(r: ByteReader, out: ByteWriter, map: Layout, mode: FrameMode, body: BodyStart): boolean {
  const full = mode !== "none";
  const cached = mode === "local";
  const edits = newEdits(mode);
  const plan = new SegmentPlan();
  const frames = new FrameStack();
  let calls = false;
  plan.open(body.codeStart, Insert.entry, true);
  const store = () => {
    if (cached) edits.storeAt.push(ins.at);
  };
  const branch = (label: number) => {
    if (frames.isFunctionLabel(label)) store();
    frames.branch(label);
  };
  const next = (live: boolean) => plan.open(r.pos, Insert.segment, live);

  for (;;) {
    if (r.atEnd()) r.fail("function body ends before its final `end`");
    readInstruction(r, ins);
    plan.add(ins.cost);
    const op = r.bytes[ins.at]!;
    if (cached && handlesExceptions(op)) return false;
    if (isCall(op)) {
      calls = true;
      if (!isReturnCall(op)) frames.call();
      store();
      if (cached && !isReturnCall(op)) edits.reloadAt.push(r.pos);
    } else if (isThrow(op)) store();
    switch (ins.kind) {
      case Kind.block:
        // a try_table's catch clauses branch to labels counted from outside it (the try_table is not one)
        if (op === OP_TRY_TABLE) for (const label of ins.labels) frames.branch(label);
        frames.push(op === OP_TRY ? Frame.try : Frame.block, plan.owner());
        break;
      case Kind.loop:
        frames.push(Frame.loop, -1, plan.nextSlot());
        plan.open(r.pos, Insert.loop, plan.isLive(), -1, ins.at);
        break;
      case Kind.if:
        frames.push(Frame.if, plan.owner());
        next(true);
        break;
      case Kind.else:
      case Kind.catch:
        next(true);
        break;
      case Kind.end: {
        if (frames.depth === 0) {
          store();
          if (!r.atEnd()) r.fail("bytes after a function body's final `end`");
          plan.toEdits(edits, full, calls);
          if (cached) edits.local = body.locals;
          if (mode === "none" && plan.anyAlternate()) edits.tickLocal = body.locals;
          emitBody(r.bytes, body.bodyStart, body.codeStart, r.pos, edits, map, scratch, out);
          return true;
        }
        const frame = frames.pop();
        if (frame.kind === Frame.loop && !frame.calls) plan.alternateFlag(frame.slot);
        if (frame.kind === Frame.loop || (frame.kind === Frame.block && !frame.targeted)) break;
        // a join: merged into the frame's opening segment when nothing left the frame early ("local" only)
        if (cached && !frame.escapes && frame.kind !== Frame.try) plan.open(r.pos, Insert.segment, true, frame.owner);
        else next(true);
        break;
      }
      case Kind.delegate:
        frames.pop();
        next(true);
        break;
      case Kind.br:
      case Kind.brIf:
        branch(ins.label);
        next(ins.kind === Kind.brIf && plan.isLive());
        break;
      case Kind.brTable:
        if (ins.labels.some((label) => frames.isFunctionLabel(label))) store();
        for (const label of ins.labels) frames.branch(label);
        next(false);
        break;
      case Kind.exit:
        if (op === OP_RETURN) store(); // calls and throws were stored above
        if (op !== OP_UNREACHABLE) frames.leaveAll(); // a trap ends the call: nothing to account for
        next(false);
        break;
      case Kind.returnCall:
        frames.leaveAll();
        next(false);
        break;
      case Kind.global:
        if (map.fuelGlobal >= 0 && ins.index >= map.importedGlobals) {
          edits.fixStart.push(ins.indexStart);
          edits.fixEnd.push(ins.indexEnd);
          edits.fixValue.push(ins.index + 1);
        }
        break;
    }
  }
}
