/** Assembling result documents: classified and extracted ones, and the all-ERROR one for unreadable files. */
import type { PageLayout, ResultDocument, ResultField } from '../../shared/service/results.js';
import { groupPages, classifyPage } from './classify.js';
import { extractFields } from './extract.js';
import { FIELD_SETS } from './field-sets.js';
import type { ReadText } from './text-model.js';
import { sourceBox } from './text-model.js';
import { isValid, passes, validateFields } from './validate.js';

/** Every optional block is filled; the caller strips what the include_* flags leave out. */
function documentBlocks(layouts: PageLayout[]): Omit<ResultDocument, 'class_name' | 'page_numbers' | 'fields'> {
  return {
    page_layouts: layouts,
    post_processed_paths: [],
    post_processed_pdf_path: null,
    review_completed: false,
    class_edit_history: [],
  };
}

export function extractedDocuments(read: ReadText): ResultDocument[] {
  return groupPages(read.pages.map(classifyPage)).map((group) => {
    const pages = group.pages.map((n) => read.pages[n]).filter((p) => p !== undefined);
    const extracted = extractFields(group.className, pages);
    const alerts = validateFields(extracted);
    const fields: ResultField[] = extracted.map((f) => {
      const own = alerts.get(f.spec.name) ?? [];
      const box = f.at ? sourceBox(f.at.page, f.at.line, f.at.start, f.at.end) : null;
      return {
        field_name: f.spec.name,
        value: f.value,
        type: f.spec.type,
        error_msg: null,
        confidence: { model: f.model, ocr: f.value === '' ? 0 : read.ocr },
        source_coordinates: box ? [box] : [],
        edit_history: [],
        validations: { valid: isValid(own), alerts: own },
      };
    });
    return {
      class_name: group.className,
      page_numbers: group.pages,
      fields,
      ...documentBlocks(pages.map((p) => p.layout)),
      validations: { final_result_pass: passes([...alerts.values()]) },
      classification_confidence: { model: group.confidence },
    };
  });
}

/** The one document of a file that could not be read: every Invoice field is "ERROR". */
export function errorDocument(error: string, layouts: PageLayout[]): ResultDocument {
  const fields: ResultField[] = FIELD_SETS.Invoice.map((spec) => ({
    field_name: spec.name,
    value: 'ERROR',
    type: spec.type,
    error_msg: error,
    confidence: { model: 0, ocr: 0 },
    source_coordinates: [],
    edit_history: [],
    validations: {
      valid: false,
      alerts: [{ alert_level: 'ERROR', msg: error, blocked: true, type: 'extraction', locations: [spec.name] }],
    },
  }));
  return {
    class_name: null,
    page_numbers: layouts.map((l) => l.page_number),
    fields,
    ...documentBlocks(layouts),
    validations: { final_result_pass: false },
    classification_confidence: { model: 0 },
  };
}
