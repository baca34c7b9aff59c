import { editTimestamp, type CaseInfo, type EditHistoryEntry, type ResultDocument, type ResultField, type ResultFile, type ResultsQuery } from '../../shared/service/results.js';

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

/**
 * Results stored by an older sandbox (a --data folder kept across versions) in the shapes it sent
 * then, brought to the service's (service-shapes.md, "Corrections"): page_numbers counted from 0
 * (recognised by a 0, which page_numbers from 1 never hold; every file's first document started at
 * page 0) now count from 1; edit timestamps in ms become `MM/DD/YYYY HH:MM:SS` (UTC); null error_msg
 * and post_processed_pdf_path are left out; ERROR alerts are FAILURE, with locations as objects;
 * a string chosen_field becomes the object of its first input. Idempotent: current shapes pass
 * through unchanged. Mutates and returns its argument.
 */
export function upgradeStoredFile<T extends ResultFile>(f: T): T {
  const fromZero = f.documents.some((d) => d.page_numbers.includes(0));
  for (const d of f.documents as (ResultDocument & Record<string, unknown>)[]) {
    if (fromZero) d.page_numbers = d.page_numbers.map((n) => n + 1);
    if (d.post_processed_pdf_path === null) delete d.post_processed_pdf_path;
    if (d.class_edit_history) d.class_edit_history = d.class_edit_history.map(upgradeEdit);
    for (const x of d.fields as (ResultField & Record<string, unknown>)[]) {
      if (x.error_msg === null) delete x.error_msg;
      if (x.edit_history) x.edit_history = x.edit_history.map(upgradeEdit);
      for (const a of x.validations?.alerts ?? []) {
        if ((a.alert_level as string) === 'ERROR') a.alert_level = 'FAILURE';
        a.locations = a.locations.map((l: unknown) => (typeof l === 'string' ? { field_name: l } : (l as { field_name: string })));
      }
    }
  }
  return f;
}

export function upgradeStoredCaseInfo(c: CaseInfo): CaseInfo {
  for (const x of c.fields as (CaseInfo['fields'][number] & Record<string, unknown>)[]) {
    const chosen: unknown = x.chosen_field;
    if (typeof chosen === 'string') {
      const input = x.input_fields.find((i) => i.refined_phrase_name === chosen);
      x.chosen_field = input ? { ...input } : null;
    }
    if (x.error_msg === null) delete x.error_msg;
    if (x.edit_history) x.edit_history = x.edit_history.map(upgradeEdit);
  }
  return c;
}

function upgradeEdit(e: EditHistoryEntry): EditHistoryEntry {
  const t: unknown = e.timestamp;
  return typeof t === 'number' ? { ...e, timestamp: editTimestamp(t) } : e;
}
