import { PrxError } from "../../../core/errors.ts";
import {
  WIT_PRIMITIVES,
  type WitField,
  type WitFunction,
  type WitInterface,
  type WitPackage,
  type WitPrimitive,
  type WitType,
  type WitTypeDef,
  type WitWorld,
} from "./model.ts";

/**
 * A parser for the subset of WIT in model.ts, enough to generate TypeScript from the PRX WIT folder. It is strict:
 * a construct outside the subset is an error naming the file and line, never skipped.
 */
interface Token {
  text: string;
  line: number;
  docs: string[];
}

const PUNCT = new Set(["{", "}", "(", ")", ";", ":", ",", "<", ">", "=", "@", "/", "."]);

function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  let docs: string[] = [];
  let line = 1;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (source.startsWith("//", i)) {
      const end = source.indexOf("\n", i);
      const text = source.slice(i, end === -1 ? source.length : end);
      if (text.startsWith("///")) docs.push(text.slice(3).trim());
      i = end === -1 ? source.length : end;
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      if (end === -1) throw witError(file, line, "unterminated /* comment");
      line += source.slice(i, end).split("\n").length - 1;
      i = end + 2;
    } else if (source.startsWith("->", i)) {
      tokens.push({ text: "->", line, docs: [] });
      i += 2;
    } else if (PUNCT.has(c)) {
      tokens.push({ text: c, line, docs: [] });
      i++;
    } else {
      const m = /^[A-Za-z0-9_%+-]+/.exec(source.slice(i));
      if (!m) throw witError(file, line, `unexpected character '${c}'`);
      tokens.push({ text: m[0], line, docs });
      docs = [];
      i += m[0].length;
    }
  }
  return tokens;
}

function witError(file: string, line: number, message: string): PrxError {
  return new PrxError("INTERNAL", `${file}:${line}: ${message}`, {
    hint: "the kit's WIT reader covers records, enums and functions of built-in types; extend src/plugins/kit/wit/ with the contract",
  });
}

class Cursor {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    readonly file: string,
  ) {}
  get done(): boolean {
    return this.pos >= this.tokens.length;
  }
  peek(offset = 0): string | undefined {
    return this.tokens[this.pos + offset]?.text;
  }
  next(): Token {
    const token = this.tokens[this.pos++];
    if (!token) throw witError(this.file, this.tokens.at(-1)?.line ?? 1, "unexpected end of file");
    return token;
  }
  expect(text: string): Token {
    const token = this.next();
    if (token.text !== text) throw witError(this.file, token.line, `expected '${text}', found '${token.text}'`);
    return token;
  }
  fail(message: string): never {
    throw witError(this.file, this.tokens[this.pos]?.line ?? this.tokens.at(-1)?.line ?? 1, message);
  }
  /** `ns:pkg/iface@1.2.3`, `ns:pkg@1.2.3` or `iface`, as one string. */
  path(): string {
    let text = this.next().text;
    while (this.peek() === ":" || this.peek() === "/" || this.peek() === "@" || this.peek() === ".") {
      const sep = this.next().text;
      text += sep + this.next().text;
    }
    return text;
  }
}

function parseType(c: Cursor): WitType {
  const name = c.next().text;
  const args = (): (WitType | null)[] => {
    if (c.peek() !== "<") return [];
    c.expect("<");
    const list: (WitType | null)[] = [];
    while (c.peek() !== ">") {
      if (c.peek() === "_") {
        c.next();
        list.push(null);
      } else list.push(parseType(c));
      if (c.peek() === ",") c.next();
    }
    c.expect(">");
    return list;
  };
  if ((WIT_PRIMITIVES as readonly string[]).includes(name)) return { kind: "prim", name: name as WitPrimitive };
  if (name === "list" || name === "option") {
    const [of] = args();
    if (!of) c.fail(`${name}<T> needs a type`);
    return { kind: name, of };
  }
  if (name === "result") {
    const [ok = null, err = null] = args();
    return { kind: "result", ok, err };
  }
  if (name === "tuple") return { kind: "tuple", of: args().map((t) => t ?? c.fail("tuple<> of _")) };
  if (["borrow", "own", "future", "stream", "map"].includes(name)) c.fail(`unsupported type ${name}<...>`);
  return { kind: "named", name };
}

function parseFields(c: Cursor, close: string): WitField[] {
  const fields: WitField[] = [];
  while (c.peek() !== close) {
    const name = c.next();
    c.expect(":");
    fields.push({ name: name.text, type: parseType(c), docs: name.docs });
    if (c.peek() === ",") c.next();
  }
  c.expect(close);
  return fields;
}

function parseInterface(c: Cursor, name: string, docs: string[]): WitInterface {
  const iface: WitInterface = { name, types: [], functions: [], docs };
  const types: WitTypeDef[] = iface.types;
  c.expect("{");
  while (c.peek() !== "}") {
    const head = c.next();
    if (head.text === "record") {
      const recordName = c.next().text;
      c.expect("{");
      types.push({ kind: "record", name: recordName, fields: parseFields(c, "}"), docs: head.docs });
    } else if (head.text === "enum") {
      const enumName = c.next().text;
      c.expect("{");
      const cases: string[] = [];
      while (c.peek() !== "}") {
        cases.push(c.next().text);
        if (c.peek() === ",") c.next();
      }
      c.expect("}");
      types.push({ kind: "enum", name: enumName, cases, docs: head.docs });
    } else if (c.peek() === ":" && c.peek(1) === "func") {
      c.expect(":");
      c.expect("func");
      c.expect("(");
      const fn: WitFunction = { name: head.text, params: parseFields(c, ")"), result: null, docs: head.docs };
      if (c.peek() === "->") {
        c.next();
        fn.result = parseType(c);
      }
      c.expect(";");
      iface.functions.push(fn);
    } else c.fail(`unsupported item '${head.text}' in interface ${name}`);
  }
  c.expect("}");
  return iface;
}

function parseWorld(c: Cursor, name: string): WitWorld {
  const world: WitWorld = { name, includes: [], imports: [], exports: [] };
  c.expect("{");
  while (c.peek() !== "}") {
    const keyword = c.next().text;
    const target = c.path();
    if (c.peek() === ":") c.fail(`world ${name}: only interfaces may be imported or exported by name`);
    c.expect(";");
    if (keyword === "include") world.includes.push(target);
    else if (keyword === "import") world.imports.push(target);
    else if (keyword === "export") world.exports.push(target);
    else c.fail(`unsupported item '${keyword}' in world ${name}`);
  }
  c.expect("}");
  return world;
}

/** Parse WIT files (path -> text) into packages by `ns:name`; each file starts with its package line. */
export function parseWitFiles(files: Readonly<Record<string, string>>): Map<string, WitPackage> {
  const packages = new Map<string, WitPackage>();
  for (const [file, text] of Object.entries(files)) {
    const c = new Cursor(tokenize(text, file), file);
    c.expect("package");
    const [name = "", version = null] = c.path().split("@");
    c.expect(";");
    const pkg = packages.get(name) ?? { name, version, interfaces: [], worlds: [] };
    packages.set(name, pkg);
    while (!c.done) {
      const head = c.next();
      const itemName = c.next().text;
      if (head.text === "interface") pkg.interfaces.push(parseInterface(c, itemName, head.docs));
      else if (head.text === "world") pkg.worlds.push(parseWorld(c, itemName));
      else c.fail(`unsupported top-level item '${head.text}'`);
    }
  }
  return packages;
}

/** Every interface a world imports, its includes followed (`prx:host/kv@0.1.0` as written). */
export function worldImports(pkg: WitPackage, world: string, seen = new Set<string>()): string[] {
  const w = pkg.worlds.find((x) => x.name === world);
  if (!w) throw new PrxError("INTERNAL", `package ${pkg.name} has no world ${world}`);
  if (seen.has(world)) return [];
  seen.add(world);
  return [...w.includes.flatMap((inc) => worldImports(pkg, inc, seen)), ...w.imports];
}
