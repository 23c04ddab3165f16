/**
 * The error value of a result-typed host import. jco lowers a thrown value with a `payload` into `err(payload)`;
 * the core-module ABI turns it into `{"err": message}`.
 */
export class HostError extends Error {
  readonly payload: string;
  constructor(message: string) {
    super(message);
    this.payload = message;
  }
}
