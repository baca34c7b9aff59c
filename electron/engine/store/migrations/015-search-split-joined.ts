import type { Db } from '../db.js';

/**
 * 015: shorter joined words stored (issue 14, fourth round; bench/README.md). A word whose parts
 * are each all letters or all digits, joined only where letters meet digits ("INV-3003",
 * "currency-1234", "scan-123.pdf"), is stored joined only two characters into its last part
 * ("INV30"): search splits a typed word where letters and digits meet, and a last part of three
 * or more characters ("inv300") is found by the stored word's own tokens (joined-words.ts,
 * storedJoinedWord; search.ts). Joints between letters ("e-mail") or digits ("1,250") are still
 * stored whole. Each character left out is up to one word or prefix entry less in the index.
 *
 * The `joined` columns already stored hold the old forms: an external-content index told to
 * delete a row with other text than it holds is corrupted, so both indexes are made again from
 * what is stored, and the watermark moves to the last rows (as 012).
 */
export function searchSplitJoined(db: Db): void {
  db.exec(`
    INSERT INTO field_search (field_search) VALUES ('rebuild');
    DELETE FROM document_search;
    INSERT INTO document_search (rowid, class_name, file_name, joined)
      SELECT d.id, d.class_name, rf.original_file_name, joined_words(concat_ws(' ', d.class_name, rf.original_file_name))
      FROM documents d JOIN result_files rf ON rf.id = d.result_file_id;
    UPDATE search_watermark SET last_id = coalesce(CASE tbl WHEN 'fields' THEN (SELECT max(id) FROM fields) ELSE (SELECT max(id) FROM documents) END, 0);
  `);
}
