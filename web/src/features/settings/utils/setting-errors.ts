import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline, fieldErrorText } from '../../../lib/error-text';
import { toast } from '../../../lib/notify';

export type SettingField = 'name' | 'value' | 'description';
export type SettingFieldErrors = Partial<Record<SettingField, string>>;

const FIELDS: readonly SettingField[] = ['name', 'value', 'description'];

/** The add call nests the row under `setting`, so the server may name `setting.name`: keep the last part. */
function fieldOf(path: string): string {
  return path.split('.').pop() ?? path;
}

/** Server field errors that belong to an input of the row, for showing under that input. */
export function fieldErrorsOf(error: unknown): SettingFieldErrors {
  const result: SettingFieldErrors = {};
  if (!(error instanceof ApiError)) return result;
  for (const item of error.errors) {
    const field = fieldOf(item.field) as SettingField;
    if (FIELDS.includes(field) && !result[field]) result[field] = fieldErrorInline({ ...item, field });
  }
  return result;
}

export const UNREACHABLE = 'Backend server is not reachable. Please check your server.';

/**
 * `docs/product.md` › Messages and errors: one toast per field error (worded by lib/error-text.ts), else the
 * server's message, else the fallback.
 */
export function toastSettingError(error: unknown, fallback: string): void {
  if (error instanceof ApiError && error.errors.length > 0) {
    for (const item of error.errors) {
      const field = fieldOf(item.field);
      toast.error(fieldErrorText({ ...item, field }));
    }
    return;
  }
  if (error instanceof ApiError && error.status === 0) {
    toast.error(UNREACHABLE);
    return;
  }
  toast.error(error instanceof ApiError && error.message ? error.message : fallback);
}
