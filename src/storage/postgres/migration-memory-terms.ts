import { PG_MEMORY_TERM_DOCS_KEPT } from "../limits.ts";

const KEPT = PG_MEMORY_TERM_DOCS_KEPT;

/**
 * `memory_terms`: how many entries hold each word (lexeme) of the memory index, up to PG_MEMORY_TERM_DOCS_KEPT, so
 * recall weighs a query's words by one primary-key read each instead of visiting every entry that holds them (a GIN
 * scan cannot count without reading the table's rows). Statement triggers on `memories` keep it in the writing
 * transaction, for every writer: a word's count changes by its net change over the statement's rows (an update that
 * keeps a word writes nothing for it), words reach the table in order (no lock-order deadlock between writers), a word
 * at the limit is not written again, and a removal from a word at the limit counts it again from the index (up to the
 * limit). A word no entry holds any longer loses its row: the table holds the live vocabulary, nothing more.
 */
export const MEMORY_TERMS_SQL = `
CREATE TABLE memory_terms (lexeme TEXT PRIMARY KEY, docs INTEGER NOT NULL);
INSERT INTO memory_terms (lexeme, docs) SELECT word, LEAST(ndoc, ${KEPT}) FROM ts_stat('SELECT fts FROM memories');
CREATE FUNCTION memory_terms_apply(lexemes TEXT[], deltas INTEGER[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF lexemes IS NULL THEN RETURN; END IF;
  INSERT INTO memory_terms AS t (lexeme, docs)
    SELECT d.l, d.n FROM unnest(lexemes, deltas) AS d(l, n)
    WHERE d.n > 0 AND NOT EXISTS (SELECT 1 FROM memory_terms s WHERE s.lexeme = d.l AND s.docs >= ${KEPT})
    ORDER BY d.l
  ON CONFLICT (lexeme) DO UPDATE SET docs = LEAST(t.docs + excluded.docs, ${KEPT});
  IF NOT EXISTS (SELECT 1 FROM unnest(deltas) AS n WHERE n < 0) THEN RETURN; END IF;
  UPDATE memory_terms t SET docs = t.docs + d.n FROM unnest(lexemes, deltas) AS d(l, n)
    WHERE d.n < 0 AND t.lexeme = d.l AND t.docs < ${KEPT};
  UPDATE memory_terms t SET docs = (
      SELECT count(*) FROM (SELECT 1 FROM memories m WHERE m.fts @@ ('''' || t.lexeme || '''')::tsquery LIMIT ${KEPT}) c)
    FROM unnest(lexemes, deltas) AS d(l, n)
    WHERE d.n < 0 AND t.lexeme = d.l AND t.docs >= ${KEPT};
  DELETE FROM memory_terms t USING unnest(lexemes, deltas) AS d(l, n) WHERE d.n < 0 AND t.lexeme = d.l AND t.docs <= 0;
END $$;
CREATE FUNCTION memory_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM memory_terms_apply(array_agg(l ORDER BY l), array_agg(n ORDER BY l))
    FROM (SELECT l, count(*)::int AS n FROM added, unnest(tsvector_to_array(added.fts)) AS l GROUP BY l) c;
  RETURN NULL;
END $$;
CREATE FUNCTION memory_terms_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM memory_terms_apply(array_agg(l ORDER BY l), array_agg(n ORDER BY l))
    FROM (SELECT l, -count(*)::int AS n FROM removed, unnest(tsvector_to_array(removed.fts)) AS l GROUP BY l) c;
  RETURN NULL;
END $$;
CREATE FUNCTION memory_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM memory_terms_apply(array_agg(l ORDER BY l), array_agg(n ORDER BY l))
    FROM (SELECT l, sum(d)::int AS n FROM (
        SELECT l, 1 AS d FROM added, unnest(tsvector_to_array(added.fts)) AS l
        UNION ALL SELECT l, -1 FROM removed, unnest(tsvector_to_array(removed.fts)) AS l) x
      GROUP BY l HAVING sum(d) <> 0) c;
  RETURN NULL;
END $$;
CREATE TRIGGER memory_terms_added AFTER INSERT ON memories
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_added();
CREATE TRIGGER memory_terms_removed AFTER DELETE ON memories
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_removed();
CREATE TRIGGER memory_terms_changed AFTER UPDATE ON memories
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION memory_terms_changed();
ANALYZE memory_terms;`;
