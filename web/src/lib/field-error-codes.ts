import type { FieldErrorCode } from '@medshare/contracts';

// The codes of contracts' FieldErrorCodeSchema as plain data: the schema itself would pull zod into
// every page. The Record type fails to compile when a code is added there and not here.
const FIELD_ERROR_CODES: Record<FieldErrorCode, true> = {
  invalid_type: true,
  too_small: true,
  too_big: true,
  invalid_format: true,
  invalid_value: true,
  not_multiple_of: true,
  unrecognized_keys: true,
  invalid_union: true,
  invalid_key: true,
  invalid_element: true,
  custom: true,
  invalid_code: true,
  rejected: true,
};

/** A code this web app knows how to word; an unknown one (a newer server) is treated as absent. */
export function isFieldErrorCode(code: unknown): code is FieldErrorCode {
  return typeof code === 'string' && Object.hasOwn(FIELD_ERROR_CODES, code);
}
