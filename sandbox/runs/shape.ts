import type { CaseInfo, ResultDocument, ResultField, ResultFile, ResultsQuery } from '../../shared/service/results.js';

type Flags = Required<Omit<ResultsQuery, 'file_offset'>>;

/** Drops the blocks whose include_* flag is false (spec 4.6 rule 3; absent, per service-shapes.md). */
function shapeField(f: ResultField, fl: Flags): ResultField {
  const { confidence, source_coordinates, edit_history, validations, ...base } = f;
  return {
    ...base,
    ...(fl.include_confidence_scores && confidence ? { confidence } : {}),
    ...(fl.include_source_info && source_coordinates ? { source_coordinates } : {}),
    ...(fl.include_review_results && edit_history ? { edit_history } : {}),
    ...(fl.include_validation_results && validations ? { validations } : {}),
  };
}

function shapeDocument(d: ResultDocument, fl: Flags): ResultDocument {
  const { page_layouts, post_processed_paths, post_processed_pdf_path, review_completed, class_edit_history, validations, classification_confidence, fields, ...base } = d;
  return {
    ...base,
    fields: fields.map((f) => shapeField(f, fl)),
    ...(fl.include_source_info ? { page_layouts, post_processed_paths, post_processed_pdf_path } : {}),
    ...(fl.include_review_results ? { review_completed, class_edit_history } : {}),
    ...(fl.include_validation_results ? { validations } : {}),
    ...(fl.include_confidence_scores ? { classification_confidence } : {}),
  };
}

export function shapeFile(f: ResultFile, fl: Flags): ResultFile {
  return { original_file_name: f.original_file_name, input_file_path: f.input_file_path, documents: f.documents.map((d) => shapeDocument(d, fl)) };
}

export function shapeCaseInfo(c: CaseInfo, fl: Flags): CaseInfo {
  return {
    fields: c.fields.map(({ edit_history, validations, ...base }) => ({
      ...base,
      ...(fl.include_review_results && edit_history ? { edit_history } : {}),
      ...(fl.include_validation_results && validations ? { validations } : {}),
    })),
  };
}
