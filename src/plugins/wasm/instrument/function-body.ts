import { emitBody } from "./body-emitter.ts";
import { type Instruction, Kind, newInstruction, readInstruction, skipValType } from "./instructions.ts";
import { type ByteReader, ByteWriter } from "./leb128.ts";
import { type BodyEdits, type FrameMode, Insert, type Metering, type Renumbering } from "./plan.ts";

/**
 * The instrumentation of one function body (FUEL.md in this folder).
 * - "full" metering cuts the body into straight-line segments — one starts at the function's entry, at a loop
 *   header, in each arm of an `if`, at a legacy `catch`, after a conditional branch, and after an `end` a branch
 *   can reach — and each live segment charges its instructions when it starts. Entries of calling functions and
 *   loop headers check. Fuel lives in a local between calls ("local" frame mode), or in the global in a function
 *   with exception handlers ("global").
 * - "interrupt" metering counts loop iterations in a local and checks every INTERRUPT_INTERVAL of them, and
 *   counts entries of calling functions on the global.
 * - call / return_call / ref.func indices of defined functions move up one (the import added before them), and
 *   so do global.get / global.set indices of defined globals.
 */

const FRAME_BLOCK = 0;
const FRAME_LOOP = 1;
const FRAME_JOIN = 2; // if and legacy try: their end always joins paths
const OP_TRY = 0x06;
const OP_TRY_TABLE = 0x1f;
const OP_DELEGATE = 0x18;
const OP_CATCH = 0x07;
const OP_CATCH_ALL = 0x19;
/** call, call_indirect, return_call, return_call_indirect, call_ref, return_call_ref */
const isCall = (op: number) => op >= 0x10 && op <= 0x15;
const isReturnCall = (op: number) => op === 0x12 || op === 0x13 || op === 0x15;
/** throw, rethrow, throw_ref */
const isThrow = (op: number) => op === 0x08 || op === 0x09 || op === 0x0a;

/** Reused between bodies (one instrumentation runs at a time on a thread). */
const ins: Instruction = newInstruction();
const scratch = new ByteWriter(64 * 1024);

/**
 * Instrument one body (`r` over it, from its locals) into `out`, size-prefixed. `params` is the function's
 * parameter count (the added local's index follows params and declared locals).
 */
export function instrumentBody(
  r: ByteReader,
  out: ByteWriter,
  map: Renumbering,
  metering: Metering,
  params: number,
): void {
  const bodyStart = r.pos;
  const localGroups = r.u32();
  let locals = params;
  for (let i = 0; i < localGroups; i++) {
    locals += r.u32();
    skipValType(r);
  }
  const codeStart = r.pos;
  const body = { bodyStart, codeStart, locals };
  if (metering === "interrupt") {
    walk(r, out, map, "interrupt", body);
    return;
  }
  // the cached local is wrong where an exception can be caught: such a function (rare) is walked again in "global"
  if (!walk(r, out, map, "local", body)) {
    r.pos = codeStart;
    walk(r, out, map, "global", body);
  }
}

interface BodyStart {
  bodyStart: number;
  codeStart: number;
  locals: number;
}

/** One pass over the instructions; false (nothing written) when "local" mode meets an exception handler. */
function walk(r: ByteReader, out: ByteWriter, map: Renumbering, mode: FrameMode, body: BodyStart): boolean {
  const full = mode !== "interrupt";
  const codeStart = body.codeStart;
  const edits: BodyEdits = {
    mode,
    local: -1,
    chargeAt: [],
    chargeKind: [],
    chargeCost: [],
    chargeCheck: [],
    storeAt: [],
    reloadAt: [],
    fixStart: [],
    fixEnd: [],
    fixValue: [],
  };
  const { chargeAt, chargeKind, chargeCost, chargeCheck } = edits;
  const cached = mode === "local";
  const frames: number[] = [];
  const targeted: boolean[] = [];
  let calls = false;
  let loops = false;

  // the open segment ("full"); "interrupt" records only entries and loop headers
  let segAt = codeStart;
  let segKind: Insert = Insert.entry;
  let segCost = 0;
  let live = true;
  const close = () => {
    if (segKind === Insert.segment && (!full || !live || segCost === 0)) return;
    chargeAt.push(segAt);
    chargeKind.push(segKind);
    chargeCost.push(full ? segCost : 1);
    chargeCheck.push(true);
  };
  const open = (kind: Insert, isLive: boolean) => {
    segAt = r.pos;
    segKind = kind;
    segCost = 0;
    live = isLive;
  };
  const target = (label: number) => {
    const at = frames.length - 1 - label;
    if (at >= 0) targeted[at] = true;
  };
  const exits = (label: number) => label === frames.length;
  const store = () => {
    if (cached) edits.storeAt.push(ins.at);
  };
  const fix = (value: number) => {
    edits.fixStart.push(ins.indexStart);
    edits.fixEnd.push(ins.indexEnd);
    edits.fixValue.push(value);
  };

  for (;;) {
    if (r.atEnd()) r.fail("function body ends before its final `end`");
    readInstruction(r, ins);
    segCost += ins.cost;
    const op = r.bytes[ins.at]!;
    if (cached && (op === OP_TRY || op === OP_TRY_TABLE || op === OP_CATCH || op === OP_CATCH_ALL || op === OP_DELEGATE)) {
      return false;
    }
    if (isCall(op)) {
      calls = true;
      store();
      if (cached && !isReturnCall(op)) edits.reloadAt.push(r.pos);
    } else if (isThrow(op)) store();
    switch (ins.kind) {
      case Kind.block:
        // a try_table's catch clauses branch to labels counted from outside it (the try_table is not one)
        if (op === OP_TRY_TABLE) for (const label of ins.labels) target(label);
        frames.push(op === OP_TRY ? FRAME_JOIN : FRAME_BLOCK);
        targeted.push(false);
        break;
      case Kind.loop:
        loops = true;
        close();
        frames.push(FRAME_LOOP);
        targeted.push(false);
        open(Insert.loop, live);
        break;
      case Kind.if:
        close();
        frames.push(FRAME_JOIN);
        targeted.push(false);
        open(Insert.segment, true);
        break;
      case Kind.else:
      case Kind.catch:
        close();
        open(Insert.segment, true);
        break;
      case Kind.end: {
        if (frames.length === 0) {
          store();
          close();
          if (!r.atEnd()) r.fail("bytes after a function body's final `end`");
          finish(r, out, map, edits, body, calls, loops);
          return true;
        }
        const kind = frames.pop()!;
        const joined = targeted.pop()!;
        if (kind === FRAME_JOIN || (kind === FRAME_BLOCK && joined)) {
          close();
          open(Insert.segment, true);
        }
        break;
      }
      case Kind.delegate:
        frames.pop();
        targeted.pop();
        close();
        open(Insert.segment, true);
        break;
      case Kind.br:
      case Kind.brIf:
        if (exits(ins.label)) store();
        target(ins.label);
        close();
        open(Insert.segment, ins.kind === Kind.brIf && live);
        break;
      case Kind.brTable:
        if (ins.labels.some(exits)) store();
        for (const label of ins.labels) target(label);
        close();
        open(Insert.segment, false);
        break;
      case Kind.exit:
        if (op === 0x0f) store(); // return (calls and throws stored above)
        close();
        open(Insert.segment, false);
        break;
      case Kind.call:
      case Kind.refFunc:
        if (ins.index >= map.importedFunctions) fix(ins.index + 1);
        break;
      case Kind.returnCall:
        if (ins.index >= map.importedFunctions) fix(ins.index + 1);
        close();
        open(Insert.segment, false);
        break;
      case Kind.global:
        if (ins.index >= map.importedGlobals) fix(ins.index + 1);
        break;
    }
  }
}

/** Settle what depended on the whole body (the entry's check, the added local), then write it. */
function finish(
  r: ByteReader,
  out: ByteWriter,
  map: Renumbering,
  edits: BodyEdits,
  body: BodyStart,
  calls: boolean,
  loops: boolean,
): void {
  // the entry is the first charge: a function that calls nothing cannot recurse, its loops check themselves
  if (edits.chargeKind[0] === Insert.entry) edits.chargeCheck[0] = calls;
  if (edits.mode === "interrupt" && !calls && edits.chargeKind[0] === Insert.entry) {
    edits.chargeAt.shift();
    edits.chargeKind.shift();
    edits.chargeCost.shift();
    edits.chargeCheck.shift();
  }
  if (edits.mode === "local" || (edits.mode === "interrupt" && loops)) edits.local = body.locals;
  emitBody(r.bytes, body.bodyStart, body.codeStart, r.pos, edits, map, scratch, out);
}
