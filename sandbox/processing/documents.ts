/**
 * Assembling result documents: classified and extracted ones, and the all-ERROR one for unreadable files.
 * Shapes as the real service sends them (service-shapes.md, "Corrections"): a document's
 * page_numbers count from 1 while page_layouts and source_coordinates count from 0; error_msg
 * and post_processed_pdf_path are absent when there is nothing to say; alert locations are objects.
 */
import type { PageLayout, ResultDocument, ResultField } from '../../shared/service/results.js';
import { groupPages, classifyPage } from './classify.js';
import { extractFields } from './extract.js';
import { FIELD_SETS } from './field-sets.js';
import type { ReadText } from './text-model.js';
import { sourceBox, spanConfidence } from './text-model.js';
import { isValid, passes, validateFields } from './validate.js';

/**
 * Every optional block is filled (post_processed_pdf_path comes only with a generated PDF); the
 * caller strips what the include_* flags leave out.
 */
function documentBlocks(layouts: PageLayout[]): Omit<ResultDocument, 'class_name' | 'page_numbers' | 'fields'> {
  return {
    page_layouts: layouts,
    post_processed_paths: [],
    review_completed: false,
    class_edit_history: [],
  };
}

/** 0-based page indexes of the file (as page_layouts number them) -> the document's page_numbers, from 1. */
export const pageNumbersOf = (indexes: number[]): number[] => indexes.map((n) => n + 1);

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
        confidence: { model: f.model, ocr: f.value === '' ? 0 : f.at ? spanConfidence(f.at.line, f.at.start, f.at.end, read.ocr) : read.ocr },
        source_coordinates: box ? [box] : [],
        edit_history: [],
        validations: { valid: isValid(own), alerts: own },
      };
    });
    return {
      class_name: group.className,
      page_numbers: pageNumbersOf(group.pages),
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
      alerts: [{ alert_level: 'FAILURE', msg: error, blocked: true, type: 'extraction', locations: [{ field_name: spec.name }] }],
    },
  }));
  return {
    class_name: null,
    page_numbers: pageNumbersOf(layouts.map((l) => l.page_number)),
    fields,
    ...documentBlocks(layouts),
    validations: { final_result_pass: false },
    classification_confidence: { model: 0 },
  };
}
