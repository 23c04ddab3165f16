import type { WitField, WitFunction, WitInterface, WitRecord, WitType } from "./model.ts";

/**
 * WIT to TypeScript as a QuickJS guest built by componentize-qjs sees it: integers and floats are numbers (u64 too),
 * `option<T>` arrives as `T | null` (and may be given as undefined), `list<u8>` arrives as a Uint8Array, a record's
 * fields are camelCase, an enum is its case name, and a function returning `result<T, E>` returns T or throws E.
 *
 * `in`: a value flowing into the guest (what an import returns, what an export receives); `out`: a value the guest
 * produces (an import's arguments, an export's return value), where optional fields may be left out.
 */
export type Direction = "in" | "out";

export function camelCase(name: string): string {
  return name.replace(/^%/, "").replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function pascalCase(name: string): string {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** JavaScript reserved words that cannot name a declared function (`kv.delete`). */
const RESERVED = new Set(["delete", "default", "function", "new", "class", "return", "switch", "case", "in", "typeof", "void", "with", "export", "import"]);

export function isReserved(name: string): boolean {
  return RESERVED.has(name);
}

const NUMBERS = new Set(["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"]);

export function tsType(type: WitType, dir: Direction): string {
  switch (type.kind) {
    case "prim":
      return type.name === "bool" ? "boolean" : NUMBERS.has(type.name) ? "number" : "string";
    case "list":
      if (type.of.kind === "prim" && type.of.name === "u8") return dir === "in" ? "Uint8Array" : "Uint8Array | number[]";
      return `Array<${tsType(type.of, dir)}>`;
    case "option":
      return dir === "in" ? `${tsType(type.of, dir)} | null` : `${tsType(type.of, dir)} | null | undefined`;
    case "result": {
      const ok = type.ok ? `; val: ${tsType(type.ok, dir)}` : "";
      const err = type.err ? `; val: ${tsType(type.err, dir)}` : "";
      return `{ tag: "ok"${ok} } | { tag: "err"${err} }`;
    }
    case "tuple":
      return `[${type.of.map((t) => tsType(t, dir)).join(", ")}]`;
    case "named":
      return pascalCase(type.name);
  }
}

/** A function's TypeScript return type: the ok value of a top-level result (its err is thrown), void for none. */
export function returnType(fn: WitFunction, dir: Direction): string {
  if (!fn.result) return "void";
  if (fn.result.kind === "result") return fn.result.ok ? tsType(fn.result.ok, dir) : "void";
  return tsType(fn.result, dir);
}

export function paramList(params: WitField[], dir: Direction): string {
  return params.map((p) => `${camelCase(p.name)}: ${tsType(p.type, dir)}`).join(", ");
}

/** JSDoc of an item: its WIT doc comments, plus what a result's err becomes (thrown by an import, by an export). */
export function jsDoc(docs: string[], indent: string, fn?: WitFunction, side: "import" | "export" = "import"): string[] {
  const lines = [...docs];
  if (fn?.result?.kind === "result" && fn.result.err) {
    lines.push(side === "import" ? "@throws {string} the host's error (the err of the WIT result)" : "Throw a string to return the err of the WIT result.");
  }
  if (lines.length === 0) return [];
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`), `${indent} */`];
}

/** The directions a record of an interface is used in (through function parameters and results, nested too). */
export function recordDirections(iface: WitInterface, imported: boolean): Map<string, Set<Direction>> {
  const uses = new Map<string, Set<Direction>>();
  const records = new Map(iface.types.filter((t): t is WitRecord => t.kind === "record").map((r) => [r.name, r]));
  const visit = (type: WitType | null, dir: Direction): void => {
    if (!type) return;
    if (type.kind === "named") {
      const set = uses.get(type.name) ?? new Set<Direction>();
      if (set.has(dir)) return;
      set.add(dir);
      uses.set(type.name, set);
      for (const field of records.get(type.name)?.fields ?? []) visit(field.type, dir);
    } else if (type.kind === "list" || type.kind === "option") visit(type.of, dir);
    else if (type.kind === "tuple") type.of.forEach((t) => visit(t, dir));
    else if (type.kind === "result") {
      visit(type.ok, dir);
      visit(type.err, dir);
    }
  };
  // an import's parameters are produced by the guest and its result consumed; an export's the other way round
  const [params, result]: [Direction, Direction] = imported ? ["out", "in"] : ["in", "out"];
  for (const fn of iface.functions) {
    fn.params.forEach((p) => visit(p.type, params));
    visit(fn.result, result);
  }
  return uses;
}
