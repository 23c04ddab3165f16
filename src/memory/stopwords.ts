
/**
 * Words that never match a memory on their own: English function words, the pieces contractions split into
 * ("what's" -> "what", "s"), and the words people wrap a request in ("can you tell me about ..."). They say how
 * something is asked, not what it is about, so a query made only of them recalls nothing.
 */
const FUNCTION_WORDS = `
a about above across after again against all almost along already also although always am among an and another
any anybody anyone anything anyway anywhere are around as at be became because become been before being below
beside besides between beyond both but by did do does doing done down during each either else enough even ever
every everybody everyone everything everywhere few for from further had has have having he her here hers herself
him himself his how however i if in indeed into is it its itself just least less many may me meanwhile might mine
more most much must my myself neither never nevertheless next no nobody none noone nor not nothing now nowhere of
off often on once one only onto or other others otherwise our ours ourselves out over own per perhaps quite rather
really same seem seemed seems several shall she should since so some somebody someone something sometime
sometimes somewhere still such than that the their theirs them themselves then there thereafter therefore these
they this those though through throughout thus to together too toward towards under until up upon us very via was
we well were what whatever when whenever where wherever whether which while who whoever whole whom whose why will
with within without would yet you your yours yourself yourselves
`;

/** What is left of contractions once the tokenizer splits at the apostrophe (don't -> don, t; we'll -> we, ll). */
const CONTRACTION_PARTS = "s t d ll m re ve don didn doesn isn aren wasn weren won wouldn shouldn couldn can cannot";

/** Request and small-talk words: how a message to an assistant is phrased, never what a note is about. */
const CONVERSATIONAL = `
hi hello hey hiya thanks thank cheers please pls ok okay yes yeah yep nope
tell tells told know knows knew remind reminds remember recall say says said ask asked let lets
could can would should want wanted need needed get gets got give find show check think guess wonder
again anyway actually basically maybe probably just today tonight tomorrow yesterday now currently
happen happens happening happened going kind sort thing things stuff lot lots
`;

// trimmed, the split leaves no empty word (a filter over the ~300 words cost more than the split at start-up)
const STOP_WORDS: ReadonlySet<string> = new Set(`${FUNCTION_WORDS} ${CONTRACTION_PARTS} ${CONVERSATIONAL}`.trim().split(/\s+/));

/** A query term that carries meaning: not a stop word and longer than one character (single digits included). */
export function isContentTerm(term: string): boolean {
  return term.length > 1 && !STOP_WORDS.has(term.toLowerCase());
}
