import { INTERRUPT_FLAG_OFFSET } from "./abi.ts";
import { ByteReader, type ByteWriter } from "./leb128.ts";
import { type BodyEdits, Insert, type Layout } from "./plan.ts";

const UNREACHABLE = 0x00;
const IF = 0x04;
const END = 0x0b;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const GLOBAL_GET = 0x23;
const GLOBAL_SET = 0x24;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I64_LT_S = 0x53;
const I32_OR = 0x72;
const I64_SUB = 0x7d;
const I32_LOAD = 0x28;
const EMPTY_BLOCK = 0x40;
const I64 = 0x7e;
const I32 = 0x7f;
const I32_AND = 0x71;
const I32_XOR = 0x73;
const I32_WRAP_I64 = 0xa7;
const ALIGN_4 = 2;
const MEMARG_HAS_MEMORY = 0x40;

/**
 * Write one function body with its edits applied, size-prefixed: the added local declared after the body's own,
 * the bytes between edits copied, charges, stores and reloads inserted at their offsets (at one offset: reload,
 * then charge, then store), global index immediates re-encoded.
 */
export function emitBody(
  bytes: Uint8Array,
  bodyStart: number,
  codeStart: number,
  bodyEnd: number,
  edits: BodyEdits,
  map: Layout,
  w: ByteWriter,
  out: ByteWriter,
): void {
  w.length = 0;
  const added = (edits.local >= 0 ? 1 : 0) + (edits.tickLocal >= 0 ? 1 : 0);
  if (added > 0) {
    // the added locals follow the body's own (the fuel local first, then the tick local: edits numbered them so)
    const header = new ByteReader(bytes, "function body", bodyStart, codeStart);
    const groups = header.u32();
    w.u32(groups + added);
    w.bytes(bytes.subarray(header.pos, codeStart));
    if (edits.local >= 0) {
      w.u8(1);
      w.u8(I64);
    }
    if (edits.tickLocal >= 0) {
      w.u8(1);
      w.u8(I32);
    }
  } else w.bytes(bytes.subarray(bodyStart, codeStart));
  const { chargeAt, storeAt, reloadAt, fixStart, tickResetAt } = edits;
  const lists = [reloadAt, chargeAt, storeAt, fixStart, tickResetAt]; // in this order at one offset
  const next = [0, 0, 0, 0, 0];
  let copied = codeStart;
  for (;;) {
    let pick = -1;
    let pickAt = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 5; k++) {
      const at = lists[k]![next[k]!];
      if (at !== undefined && at < pickAt) {
        pick = k;
        pickAt = at;
      }
    }
    if (pick < 0) break;
    const i = next[pick]!++;
    w.bytes(bytes.subarray(copied, pickAt));
    copied = pickAt;
    if (pick === 0) reload(w, map, edits.local);
    else if (pick === 1) charge(w, map, edits, i);
    else if (pick === 2) store(w, map, edits.local);
    else if (pick === 3) {
      w.u32(edits.fixValue[i]!);
      copied = edits.fixEnd[i]!;
    } else {
      // the tick starts over before each loop, so it is live only inside the loops that use it
      w.u8(I32_CONST);
      w.u8(0);
      w.u8(LOCAL_SET);
      w.u32(edits.tickLocal);
    }
  }
  w.bytes(bytes.subarray(copied, bodyEnd));
  out.u32(w.length);
  out.bytes(w.view());
}

function store(w: ByteWriter, map: Layout, local: number): void {
  w.u8(LOCAL_GET);
  w.u32(local);
  w.u8(GLOBAL_SET);
  w.u32(map.fuelGlobal);
}

function reload(w: ByteWriter, map: Layout, local: number): void {
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

/**
 * Read the flag (an i32 on the stack). A plain load: JavaScriptCore compiles `i32.atomic.load` into a locked
 * read-modify-write (measured: guests 3-4x slower). Its optimizing tier does hoist a plain load out of a loop in
 * which nothing may write memory (measured: a `loop br 0` kept spinning after the flag was raised), so in a loop
 * that calls nothing the address alternates between the flag's two words, derived from a value that changes every
 * iteration — the fuel ("full"), or an added tick local ("interrupt") — and the read cannot move. A loop that
 * calls keeps the constant address: the call may write any memory, so the read stays in the loop.
 */
function loadFlag(w: ByteWriter, map: Layout, edits: BodyEdits, alternate: boolean): void {
  if (!alternate) {
    w.u8(I32_CONST);
    w.u8(0);
  } else if (edits.mode === "none") {
    // tick ^= 4
    w.u8(LOCAL_GET);
    w.u32(edits.tickLocal);
    w.u8(I32_CONST);
    w.u8(4);
    w.u8(I32_XOR);
    w.u8(LOCAL_TEE);
    w.u32(edits.tickLocal);
  } else {
    // (i32) fuel & 4
    w.u8(edits.mode === "local" ? LOCAL_GET : GLOBAL_GET);
    w.u32(edits.mode === "local" ? edits.local : map.fuelGlobal);
    w.u8(I32_WRAP_I64);
    w.u8(I32_CONST);
    w.u8(4);
    w.u8(I32_AND);
  }
  w.u8(I32_LOAD);
  if (map.flagMemory === 0) w.u8(ALIGN_4);
  else {
    w.u8(ALIGN_4 | MEMARG_HAS_MEMORY);
    w.u32(map.flagMemory);
  }
  w.u32(INTERRUPT_FLAG_OFFSET);
}

/** `if; [before]; unreachable; end` on the i32 condition on the stack. */
function trapIf(w: ByteWriter, before?: () => void): void {
  w.u8(IF);
  w.u8(EMPTY_BLOCK);
  before?.();
  w.u8(UNREACHABLE);
  w.u8(END);
}

/** The fuel value on the stack is below zero (i32 result). */
function isNegative(w: ByteWriter): void {
  w.u8(I64_CONST);
  w.u8(0);
  w.u8(I64_LT_S);
}

function charge(w: ByteWriter, map: Layout, edits: BodyEdits, i: number): void {
  const kind = edits.chargeKind[i]!;
  const cost = edits.chargeCost[i]!;
  const check = edits.chargeCheck[i]!;
  const alternate = edits.chargeAlternate[i]!;
  const L = edits.local;
  const F = map.fuelGlobal;
  if (edits.mode === "none") {
    // interrupt checks only: trap when the flag is raised
    loadFlag(w, map, edits, alternate);
    trapIf(w);
    return;
  }
  if (edits.mode === "local") {
    // entry: fuel = global - cost; elsewhere: fuel -= cost; a check traps (after storing the fuel) when fuel is
    // below zero or the flag is raised
    if (kind === Insert.entry) {
      w.u8(GLOBAL_GET);
      w.u32(F);
    } else {
      w.u8(LOCAL_GET);
      w.u32(L);
    }
    subtract(w, cost);
    w.u8(check ? LOCAL_TEE : LOCAL_SET);
    w.u32(L);
    if (!check) return;
    isNegative(w);
    loadFlag(w, map, edits, alternate);
    w.u8(I32_OR);
    trapIf(w, () => store(w, map, L));
    return;
  }
  // "global": global -= cost; a check tests the global and the flag
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
  isNegative(w);
  loadFlag(w, map, edits, alternate);
  w.u8(I32_OR);
  trapIf(w);
}
