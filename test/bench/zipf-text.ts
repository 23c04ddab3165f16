/** Deterministic text for benchmarks: Zipf-distributed words (common English words, then pseudo-words). */

/** Deterministic PRNG (mulberry32) so every run stores and queries the same text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  "the a to and of in is it you that he was for on are with as I his they be at one have this from or had by " +
  "not but what all were we when your can said there use an each which she do how their if will up other about out " +
  "many then them these so some her would make like him into time has look two more write go see number no way could"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo pe da ge hu ji ko lu ma ni po re si to va we xi yo zu ba ce fi go".split(
  " ",
);

/** A vocabulary of common words followed by pseudo-words, drawn with a Zipf-like distribution like real text. */
export function wordSource(seed: number, vocabularySize = 20_000): () => string {
  const random = prng(seed);
  const vocabulary = [...COMMON];
  const made = new Set(vocabulary);
  // the vocabulary is the same for every seed, so queries share words with the stored entries
  const syllables = prng(0x5eed);
  while (vocabulary.length < vocabularySize) {
    const count = 2 + Math.floor(syllables() * 3);
    let word = "";
    for (let i = 0; i < count; i++) word += SYLLABLES[Math.floor(syllables() * SYLLABLES.length)];
    if (!made.has(word)) {
      made.add(word);
      vocabulary.push(word);
    }
  }
  // Zipf with exponent 1: P(rank r) ~ 1/r, sampled through the inverse of the harmonic CDF approximation.
  const harmonic = Math.log(vocabulary.length) + 0.5772;
  return () => {
    const rank = Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * harmonic - 0.5772)));
    return vocabulary[Math.max(0, rank)]!;
  };
}

export function sentence(word: () => string, random: () => number, min: number, max: number): string {
  const length = min + Math.floor(random() * (max - min + 1));
  const words: string[] = [];
  for (let i = 0; i < length; i++) words.push(word());
  return words.join(" ");
}
