/** Observers are UI callbacks; a failing UI must not break the turn. */
export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // deliberately ignored: see above
  }
}
