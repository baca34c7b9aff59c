/**
 * The classes the sandbox knows and the fields of each, under their project names as a user would
 * write them in the automation project; results carry them normalised (spec 2.8, field-names.ts).
 * Most are written with spaces, so their result names are the familiar `invoice_number`; the
 * receipt's `payment_method` keeps its underscore, so results show the rule's doubling
 * (`payment__method`) as the real service's do.
 */
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
    spec('invoice number', 'TEXT', true),
    spec('invoice date', 'DATE', true),
    spec('due date', 'DATE', false),
    spec('total amount', 'NUMBER', true),
    spec('currency', 'TEXT', false),
    spec('Vendor Name', 'TEXT', true),
    spec('1st Line Item', 'TEXT', false),
  ],
  Receipt: [
    spec('merchant', 'TEXT', true),
    spec('receipt date', 'DATE', true),
    spec('total amount', 'NUMBER', true),
    spec('payment_method', 'TEXT', false),
  ],
  Other: [spec('first line', 'TEXT', false)],
};

/** Result names of fields the case fields read. */
export const VENDOR_NAME = normalizeFieldName('Vendor Name');
export const TOTAL_AMOUNT = normalizeFieldName('total amount');
export const CURRENCY = normalizeFieldName('currency');
