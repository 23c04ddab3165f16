import { PrxError } from "../errors.ts";

/**
 * Long strings that need no JSON escaping (base64 image data), written into a document after JSON.stringify ran
 * over a short stand-in for each: stringify scans every character of a string for escapes, and on an image turn
 * that scan of hundreds of kilobytes is the largest cost of building the request. A stand-in carries a random
 * part, so text that happens to look like one is never replaced.
 */
export class JsonStandIns {
  /** Each value as the pieces it was given in (a data URL's head and its data), never joined into one string. */
  private readonly values: string[][] = [];
  private readonly tag = `\u0000prx-${crypto.randomUUID().slice(0, 8)}-`;

  /**
   * A stand-in to put where the value, `pieces` one after the other, goes. The value must hold only characters JSON
   * writes as they are (letters, digits, `+/=:;,.-_`; base64 and data: URLs of it): the caller vouches for that, as
   * this is the point of the class.
   */
  stand(...pieces: string[]): string {
    this.values.push(pieces);
    return `${this.tag}${this.values.length - 1}\u0000`;
  }

  /** Whether any value stands in a document. */
  get empty(): boolean {
    return this.values.length === 0;
  }

  /** `json` (JSON.stringify of a document holding the stand-ins) with each stand-in's quoted form replaced by its value. */
  fill(json: string): string {
    return this.values.length === 0 ? json : this.parts(json).join("");
  }

  /**
   * `fill(json)` as the parts it is joined from: the document's text between stand-ins and each value's pieces, for a
   * caller that writes them out without making the document one long string.
   */
  parts(json: string): string[] {
    const escapedTag = JSON.stringify(this.tag).slice(1, -1);
    const parts: string[] = [];
    let from = 0;
    for (let i = 0; i < this.values.length; i++) {
      const standIn = `${escapedTag}${i}\\u0000`;
      const at = json.indexOf(standIn, from);
      if (at < 0) throw new PrxError("INTERNAL", `stand-in ${i} is missing from the JSON document it was made for`);
      parts.push(json.slice(from, at), ...this.values[i]!);
      from = at + standIn.length;
    }
    parts.push(json.slice(from));
    return parts;
  }
}
