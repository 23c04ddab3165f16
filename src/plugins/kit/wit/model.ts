/**
 * The part of WIT the PRX contract uses, as the kit's parser reads it: packages of interfaces (records, enums and
 * functions over the built-in types) and worlds (include, import, export). Anything else in a WIT file is an error
 * of the parser, so a contract that grows past this subset is noticed by the generator's tests, not mistyped.
 */
export type WitType =
  | { kind: "prim"; name: WitPrimitive }
  | { kind: "list"; of: WitType }
  | { kind: "option"; of: WitType }
  | { kind: "result"; ok: WitType | null; err: WitType | null }
  | { kind: "tuple"; of: WitType[] }
  | { kind: "named"; name: string };

export const WIT_PRIMITIVES = [
  "bool",
  "u8",
  "u16",
  "u32",
  "u64",
  "s8",
  "s16",
  "s32",
  "s64",
  "f32",
  "f64",
  "char",
  "string",
] as const;
export type WitPrimitive = (typeof WIT_PRIMITIVES)[number];

export interface WitField {
  name: string;
  type: WitType;
  docs: string[];
}

export interface WitRecord {
  kind: "record";
  name: string;
  fields: WitField[];
  docs: string[];
}

export interface WitEnum {
  kind: "enum";
  name: string;
  cases: string[];
  docs: string[];
}

export type WitTypeDef = WitRecord | WitEnum;

export interface WitFunction {
  name: string;
  params: WitField[];
  result: WitType | null;
  docs: string[];
}

export interface WitInterface {
  name: string;
  types: WitTypeDef[];
  functions: WitFunction[];
  docs: string[];
}

export interface WitWorld {
  name: string;
  includes: string[];
  /** Interface names as written (`prx:host/kv@0.1.0`, or a bare name of the same package). */
  imports: string[];
  exports: string[];
}

export interface WitPackage {
  /** `prx:host` */
  name: string;
  version: string | null;
  interfaces: WitInterface[];
  worlds: WitWorld[];
}
