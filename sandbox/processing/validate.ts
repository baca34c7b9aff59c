/** Field validations: required fields, types, and date order. */
import type { ValidationAlert } from '../../shared/service/results.js';
import { isAmount, isIsoDate } from './parse.js';
import type { FieldSpec } from './field-sets.js';

export interface FieldValue {
  spec: FieldSpec;
  value: string;
}

/**
 * Alert levels the sandbox sends. FAILURE is the real service's level for a failed validation; it
 * blocks the document (the service would stop at a review checkpoint). A WARNING does not.
 */
export type AlertLevel = 'FAILURE' | 'WARNING';

const alert = (level: AlertLevel, type: string, msg: string, field: string): ValidationAlert => ({
  alert_level: level,
  msg,
  blocked: level === 'FAILURE',
  type,
  locations: [{ field_name: field }],
});

/** Alerts per field name (every field of `fields` has an entry, maybe empty). */
export function validateFields(fields: FieldValue[]): Map<string, ValidationAlert[]> {
  const alerts = new Map<string, ValidationAlert[]>(fields.map((f) => [f.spec.name, []]));
  const add = (a: ValidationAlert): void => {
    alerts.get(a.locations[0]?.field_name ?? '')?.push(a);
  };
  for (const { spec, value } of fields) {
    if (value === '') {
      if (spec.required) add(alert('FAILURE', 'required', `${spec.name} is required but was not found`, spec.name));
    } else if (spec.type === 'NUMBER' && !isAmount(value)) {
      add(alert('FAILURE', 'type', `${spec.name} is not a number: "${value}"`, spec.name));
    } else if (spec.type === 'DATE' && !isIsoDate(value)) {
      add(alert('FAILURE', 'type', `${spec.name} is not a date: "${value}"`, spec.name));
    }
  }
  const issued = fields.find((f) => f.spec.raw === 'invoice date');
  const due = fields.find((f) => f.spec.raw === 'due date');
  // ISO dates compare correctly as strings.
  if (issued && due && isIsoDate(issued.value) && isIsoDate(due.value) && due.value < issued.value) {
    add(alert('WARNING', 'consistency', `${due.spec.name} ${due.value} is before ${issued.spec.name} ${issued.value}`, due.spec.name));
  }
  return alerts;
}

/** A field is valid when it has no alert (the sandbox sends no informational ones). */
export const isValid = (alerts: ValidationAlert[]): boolean => alerts.length === 0;

/** A document passes when none of its fields has a blocking alert. */
export const passes = (alerts: ValidationAlert[][]): boolean => alerts.every((list) => list.every((a) => !a.blocked));
