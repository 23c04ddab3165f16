import { ByteReader, type ByteWriter } from "./leb128.ts";
import { type BodyEdits, INTERRUPT_INTERVAL, Insert, type Renumbering } from "./plan.ts";

const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const GLOBAL_GET = 0x23;
const GLOBAL_SET = 0x24;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I32_GE_U = 0x4f;
const I64_LT_S = 0x53;
const I32_ADD = 0x6a;
const I64_SUB = 0x7d;
const IF = 0x04;
const EMPTY_BLOCK = 0x40;
const CALL = 0x10;
const END = 0x0b;
const I32 = 0x7f;
const I64 = 0x7e;

/**
 * Write one function body with its edits applied, size-prefixed: the added local declared after the body's own,
 * the bytes between edits copied, charges, stores and reloads inserted at their offsets (at one offset: reload,
 * then charge, then store), index immediates re-encoded.
 */
export function emitBody(
  bytes: Uint8Array,
  bodyStart: number,
  codeStart: number,
  bodyEnd: number,
  edits: BodyEdits,
  map: Renumbering,
  w: ByteWriter,
  out: ByteWriter,
): void {
  w.length = 0;
  if (edits.local >= 0) {
    const header = new ByteReader(bytes, "function body", bodyStart, codeStart);
    const groups = header.u32();
    w.u32(groups + 1);
    w.bytes(bytes.subarray(header.pos, codeStart));
    w.u8(1);
    w.u8(edits.mode === "interrupt" ? I32 : I64);
  } else w.bytes(bytes.subarray(bodyStart, codeStart));
  const { chargeAt, storeAt, reloadAt, fixStart } = edits;
  const next = [0, 0, 0, 0]; // reload, charge, store, fix
  let copied = codeStart;
  for (;;) {
    const at = [reloadAt[next[0]!], chargeAt[next[1]!], storeAt[next[2]!], fixStart[next[3]!]];
    let pick = -1;
    for (let k = 0; k < 4; k++) if (at[k] !== undefined && (pick < 0 || at[k]! < at[pick]!)) pick = k;
    if (pick < 0) break;
    const i = next[pick]!++;
    w.bytes(bytes.subarray(copied, at[pick]!));
    copied = at[pick]!;
    if (pick === 0) reload(w, map, edits.local);
    else if (pick === 1) charge(w, map, edits, i);
    else if (pick === 2) store(w, map, edits.local);
    else {
      w.u32(edits.fixValue[i]!);
      copied = edits.fixEnd[i]!;
    }
  }
  w.bytes(bytes.subarray(copied, bodyEnd));
  out.u32(w.length);
  out.bytes(w.view());
}

function store(w: ByteWriter, map: Renumbering, local: number): void {
  w.u8(LOCAL_GET);
  w.u32(local);
  w.u8(GLOBAL_SET);
  w.u32(map.fuelGlobal);
}

function reload(w: ByteWriter, map: Renumbering, local: number): void {
  w.u8(GLOBAL_GET);
  w.u32(map.fuelGlobal);
  w.u8(LOCAL_SET);
  w.u32(local);
}

/** `i64.const cost; i64.sub` (nothing for 0). */
function subtract(w: ByteWriter, cost: number): void {
  if (cost === 0) return;
  w.u8(I64_CONST);
  w.s32(cost);
  w.u8(I64_SUB);
}

/** `i64.const 0; i64.lt_s; if` — the fuel value on the stack is below zero. */
function ifNegative(w: ByteWriter): void {
  w.u8(I64_CONST);
  w.u8(0);
  w.u8(I64_LT_S);
  w.u8(IF);
  w.u8(EMPTY_BLOCK);
}

function callCheck(w: ByteWriter, map: Renumbering): void {
  w.u8(CALL);
  w.u32(map.checkFunction);
}

function charge(w: ByteWriter, map: Renumbering, edits: BodyEdits, i: number): void {
  const kind = edits.chargeKind[i]!;
  const cost = edits.chargeCost[i]!;
  const check = edits.chargeCheck[i]!;
  const L = edits.local;
  const F = map.fuelGlobal;
  if (edits.mode === "interrupt" && kind === Insert.loop) {
    // local.get N; i32.const 1; i32.add; local.tee N; i32.const INTERVAL; i32.ge_u; if; call check; N = 0; end
    w.u8(LOCAL_GET);
    w.u32(L);
    w.u8(I32_CONST);
    w.u8(1);
    w.u8(I32_ADD);
    w.u8(LOCAL_TEE);
    w.u32(L);
    w.u8(I32_CONST);
    w.s32(INTERRUPT_INTERVAL);
    w.u8(I32_GE_U);
    w.u8(IF);
    w.u8(EMPTY_BLOCK);
    callCheck(w, map);
    w.u8(I32_CONST);
    w.u8(0);
    w.u8(LOCAL_SET);
    w.u32(L);
    w.u8(END);
    return;
  }
  if (edits.mode === "local") {
    // entry: fuel = global - cost; elsewhere: fuel -= cost; a check stores, calls check, reloads
    if (kind === Insert.entry) {
      w.u8(GLOBAL_GET);
      w.u32(F);
    } else {
      w.u8(LOCAL_GET);
      w.u32(L);
    }
    subtract(w, cost);
    if (!check) {
      w.u8(LOCAL_SET);
      w.u32(L);
      return;
    }
    w.u8(LOCAL_TEE);
    w.u32(L);
    ifNegative(w);
    store(w, map, L);
    callCheck(w, map);
    reload(w, map, L);
    w.u8(END);
    return;
  }
  // "global" (and the entries of "interrupt"): global -= cost; a check tests the global
  if (cost > 0) {
    w.u8(GLOBAL_GET);
    w.u32(F);
    subtract(w, cost);
    w.u8(GLOBAL_SET);
    w.u32(F);
  }
  if (!check) return;
  w.u8(GLOBAL_GET);
  w.u32(F);
  ifNegative(w);
  callCheck(w, map);
  w.u8(END);
}
