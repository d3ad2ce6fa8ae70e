import CloseIcon from '@mui/icons-material/Close';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent, type ReactNode } from 'react';
import { isSubmitKey } from '../../../components/form/submit-key';
import type { SettingFieldErrors } from '../utils/setting-errors';

export type SettingDraft = { name: string; value: string; description: string };

type SettingEditorProps = {
  /** Names the form for assistive technology ('Edit welcome_text', 'Add a setting'). */
  formLabel: string;
  initial: SettingDraft;
  labels: { name: string; value: string; description: string };
  errors: SettingFieldErrors;
  busy: boolean;
  submitLabel: string;
  submitIcon: ReactNode;
  onSubmit: (draft: SettingDraft, reset: () => void) => void;
  onCancel?: () => void;
  /** A built-in setting keeps its name; the reason shows under the locked input. */
  nameLock?: string;
  requireName?: boolean;
  autoFocusValue?: boolean;
};

/**
 * The three inputs of a setting and its buttons, laid out by the width they get: one line in a
 * wide table row, stacked in a phone's card. The fields wrap instead of being cut or pushing the
 * buttons out of view.
 */
export function SettingEditor({
  formLabel,
  initial,
  labels,
  errors,
  busy,
  submitLabel,
  submitIcon,
  onSubmit,
  onCancel,
  nameLock,
  requireName = false,
  autoFocusValue = false,
}: SettingEditorProps) {
  const [draft, setDraft] = useState<SettingDraft>(initial);
  const [nameError, setNameError] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // docs/product.md › Validation rules: adding requires a non-empty name; checked here so no call is made without one.
    if (requireName && !draft.name.trim()) {
      setNameError('Name is required');
      return;
    }
    setNameError(null);
    onSubmit(draft, () => setDraft(initial));
  };

  const shown: SettingFieldErrors = { ...errors, ...(nameError ? { name: nameError } : {}) };

  return (
    <Box
      component="form"
      aria-label={formLabel}
      onSubmit={submit}
      noValidate
      sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, alignItems: 'flex-start' }}
    >
      <TextField
        size="small"
        label={labels.name}
        value={draft.name}
        onChange={(e) => {
          setDraft({ ...draft, name: e.target.value });
          if (nameError && e.target.value.trim()) setNameError(null);
        }}
        required={requireName}
        disabled={Boolean(nameLock)}
        error={Boolean(shown.name)}
        helperText={shown.name ?? nameLock}
        slotProps={{
          htmlInput: { maxLength: 100 },
          // The reason must stay readable although the field is disabled (contrast).
          formHelperText: { sx: { '&.Mui-disabled': { color: 'text.secondary' } } },
        }}
        sx={{ flex: '1 1 240px', minWidth: 0 }}
      />
      <TextField
        size="small"
        label={labels.value}
        value={draft.value}
        onChange={(e) => setDraft({ ...draft, value: e.target.value })}
        error={Boolean(shown.value)}
        helperText={shown.value}
        autoFocus={autoFocusValue}
        slotProps={{ htmlInput: { maxLength: 2000 } }}
        sx={{ flex: '1 1 160px', minWidth: 0 }}
      />
      {/* A description is one line of text, but read whole while editing: it wraps (up to four lines,
          then scrolls) instead of being cut at a phone's width; Enter saves, as in the other inputs. */}
      <TextField
        size="small"
        label={labels.description}
        value={draft.description}
        // One line of text: a line break (Shift+Enter, a paste) becomes a space.
        onChange={(e) => setDraft({ ...draft, description: e.target.value.replace(/\r?\n/g, ' ') })}
        onKeyDown={(e) => {
          if (!isSubmitKey(e)) return;
          e.preventDefault();
          (e.currentTarget as HTMLElement).closest('form')?.requestSubmit();
        }}
        multiline
        maxRows={4}
        error={Boolean(shown.description)}
        helperText={shown.description}
        slotProps={{ htmlInput: { maxLength: 500 } }}
        sx={{ flex: '2 1 240px', minWidth: 0 }}
      />
      <Box sx={{ display: 'flex', gap: 1, flex: '0 0 auto', ml: 'auto', pt: 0.25 }}>
        {onCancel && (
          <Button variant="outlined" startIcon={<CloseIcon />} onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        )}
        <Button type="submit" variant="contained" startIcon={submitIcon} disabled={busy}>
          {submitLabel}
        </Button>
      </Box>
    </Box>
  );
}
