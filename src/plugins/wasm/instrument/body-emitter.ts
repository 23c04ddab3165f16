import type { ByteWriter } from "./leb128.ts";
import type { BodyEdits, Renumbering } from "./plan.ts";

const GLOBAL_GET = 0x23;
const GLOBAL_SET = 0x24;
const I64_CONST = 0x42;
const I64_SUB = 0x7d;
const I64_LT_S = 0x53;
const IF = 0x04;
const EMPTY_BLOCK = 0x40;
const CALL = 0x10;
const END = 0x0b;

/**
 * Write one function body with its edits applied: the bytes between edits are copied, charges inserted at their
 * offsets, index immediates re-encoded. `body` is written to `scratch` first, then size-prefixed into `out`.
 */
export function emitBody(
  bytes: Uint8Array,
  bodyStart: number,
  codeStart: number,
  bodyEnd: number,
  edits: BodyEdits,
  map: Renumbering,
  scratch: ByteWriter,
  out: ByteWriter,
): void {
  const { insAt, insCost, insCheck, fixStart, fixEnd, fixValue } = edits;
  const w = scratch;
  w.length = 0;
  w.bytes(bytes.subarray(bodyStart, codeStart));
  let copied = codeStart;
  let i = 0;
  let j = 0;
  while (i < insAt.length || j < fixStart.length) {
    if (j >= fixStart.length || (i < insAt.length && insAt[i]! <= fixStart[j]!)) {
      w.bytes(bytes.subarray(copied, insAt[i]!));
      copied = insAt[i]!;
      writeCharge(w, map, insCost[i]!, insCheck[i]!);
      i++;
    } else {
      w.bytes(bytes.subarray(copied, fixStart[j]!));
      w.u32(fixValue[j]!);
      copied = fixEnd[j]!;
      j++;
    }
  }
  w.bytes(bytes.subarray(copied, bodyEnd));
  out.u32(w.length);
  out.bytes(w.view());
}

/**
 * `global.get $fuel; i64.const cost; i64.sub; global.set $fuel` (when cost > 0), then, at a check,
 * `global.get $fuel; i64.const 0; i64.lt_s; if; call $check; end`.
 */
function writeCharge(w: ByteWriter, map: Renumbering, cost: number, check: boolean): void {
  if (cost > 0) {
    w.u8(GLOBAL_GET);
    w.u32(map.fuelGlobal);
    w.u8(I64_CONST);
    w.s32(cost);
    w.u8(I64_SUB);
    w.u8(GLOBAL_SET);
    w.u32(map.fuelGlobal);
  }
  if (!check) return;
  w.u8(GLOBAL_GET);
  w.u32(map.fuelGlobal);
  w.u8(I64_CONST);
  w.u8(0);
  w.u8(I64_LT_S);
  w.u8(IF);
  w.u8(EMPTY_BLOCK);
  w.u8(CALL);
  w.u32(map.checkFunction);
  w.u8(END);
}
