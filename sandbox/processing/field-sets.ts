/** The classes the sandbox knows and the fields of each, under their raw project names. */
import { normalizeFieldName } from '../../shared/service/field-names.js';

export type FieldType = 'TEXT' | 'DATE' | 'NUMBER';
export type ClassName = 'Invoice' | 'Receipt' | 'Other';

export interface FieldSpec {
  /** Name as written in the automation project. */
  raw: string;
  /** Name as it appears in results (spec 2.8 normalisation). */
  name: string;
  type: FieldType;
  required: boolean;
}

const spec = (raw: string, type: FieldType, required: boolean): FieldSpec => ({ raw, name: normalizeFieldName(raw), type, required });

export const FIELD_SETS: Record<ClassName, FieldSpec[]> = {
  Invoice: [
    spec('invoice_number', 'TEXT', true),
    spec('invoice_date', 'DATE', true),
    spec('due_date', 'DATE', false),
    spec('total_amount', 'NUMBER', true),
    spec('currency', 'TEXT', false),
    spec('Vendor Name', 'TEXT', true),
    spec('1st Line Item', 'TEXT', false),
  ],
  Receipt: [
    spec('merchant', 'TEXT', true),
    spec('receipt_date', 'DATE', true),
    spec('total_amount', 'NUMBER', true),
    spec('payment_method', 'TEXT', false),
  ],
  Other: [spec('first_line', 'TEXT', false)],
};

/** Result names of fields the rules refer to. */
export const VENDOR_NAME = normalizeFieldName('Vendor Name');
export const FIRST_LINE_ITEM = normalizeFieldName('1st Line Item');
