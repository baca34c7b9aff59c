/** Field validations: required fields, types, and date order. */
import type { ValidationAlert } from '../../shared/service/results.js';
import { isAmount, isIsoDate } from './parse.js';
import type { FieldSpec } from './field-sets.js';

export interface FieldValue {
  spec: FieldSpec;
  value: string;
}

// An ERROR blocks the document (the service would stop at a review checkpoint); a WARNING does not.
const alert = (level: ValidationAlert['alert_level'], type: string, msg: string, field: string): ValidationAlert => ({
  alert_level: level,
  msg,
  blocked: level === 'ERROR',
  type,
  locations: [field],
});

/** Alerts per field name (every field of `fields` has an entry, maybe empty). */
export function validateFields(fields: FieldValue[]): Map<string, ValidationAlert[]> {
  const alerts = new Map<string, ValidationAlert[]>(fields.map((f) => [f.spec.name, []]));
  const add = (a: ValidationAlert): void => {
    alerts.get(a.locations[0] ?? '')?.push(a);
  };
  for (const { spec, value } of fields) {
    if (value === '') {
      if (spec.required) add(alert('ERROR', 'required', `${spec.name} is required but was not found`, spec.name));
    } else if (spec.type === 'NUMBER' && !isAmount(value)) {
      add(alert('ERROR', 'type', `${spec.name} is not a number: "${value}"`, spec.name));
    } else if (spec.type === 'DATE' && !isIsoDate(value)) {
      add(alert('ERROR', 'type', `${spec.name} is not a date: "${value}"`, spec.name));
    }
  }
  const issued = fields.find((f) => f.spec.name === 'invoice_date')?.value ?? '';
  const due = fields.find((f) => f.spec.name === 'due_date')?.value ?? '';
  // ISO dates compare correctly as strings.
  if (isIsoDate(issued) && isIsoDate(due) && due < issued) {
    add(alert('WARNING', 'consistency', `due_date ${due} is before invoice_date ${issued}`, 'due_date'));
  }
  return alerts;
}

/** A field is valid when it has no ERROR or WARNING alert. */
export const isValid = (alerts: ValidationAlert[]): boolean => alerts.every((a) => a.alert_level === 'INFO');

/** A document passes when none of its fields has an ERROR alert. */
export const passes = (alerts: ValidationAlert[][]): boolean => alerts.every((list) => list.every((a) => a.alert_level !== 'ERROR'));
