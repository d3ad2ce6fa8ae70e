import Box from '@mui/material/Box';
import InputBase from '@mui/material/InputBase';
import { useRef, type ClipboardEvent, type KeyboardEvent } from 'react';

type OtpInputProps = {
  /** One entry per box, '' for an empty box. */
  value: string[];
  onChange: (value: string[]) => void;
  /** Names the group for screen readers, e.g. 'Verification code'. */
  label: string;
  disabled?: boolean;
  autoFocus?: boolean;
};

const onlyDigits = (text: string) => text.replace(/\D/g, '');

export function emptyOtp(length: number): string[] {
  return Array.from({ length }, () => '');
}

/**
 * One box per digit: digits only, one per box, typing moves on, Backspace on an empty box moves
 * back, and pasting (or a phone's one-time-code autofill) spreads a whole code over the boxes.
 */
export function OtpInput({ value, onChange, label, disabled, autoFocus }: OtpInputProps) {
  const refs = useRef<Array<HTMLInputElement | null>>([]);
  const length = value.length;

  const focusBox = (index: number) => {
    const box = refs.current[Math.max(0, Math.min(length - 1, index))];
    box?.focus();
    box?.select();
  };

  const fillFrom = (start: number, digits: string) => {
    const next = [...value];
    let index = start;
    for (const digit of digits) {
      if (index >= length) break;
      next[index] = digit;
      index += 1;
    }
    onChange(next);
    focusBox(index >= length ? length - 1 : index);
  };

  const handleChange = (index: number, raw: string): void => {
    const digits = onlyDigits(raw);
    if (raw !== '' && digits === '') return; // a letter or symbol: the box keeps what it had
    const previous = value[index] ?? '';
    if (digits.length === 2 && previous) {
      // A digit typed into a full box without selecting it: keep the new one, whichever side.
      const typed = digits.startsWith(previous) ? digits.slice(1) : digits.slice(0, 1);
      handleChange(index, typed);
      return;
    }
    if (digits.length > 1) {
      // A phone's one-time-code autofill puts the whole code into one box.
      fillFrom(index, digits);
      return;
    }
    const next = [...value];
    next[index] = digits;
    onChange(next);
    if (digits && index < length - 1) focusBox(index + 1);
  };

  const handleKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Backspace' && !value[index] && index > 0) {
      event.preventDefault();
      const next = [...value];
      next[index - 1] = '';
      onChange(next);
      focusBox(index - 1);
    } else if (event.key === 'ArrowLeft' && index > 0) {
      event.preventDefault();
      focusBox(index - 1);
    } else if (event.key === 'ArrowRight' && index < length - 1) {
      event.preventDefault();
      focusBox(index + 1);
    }
  };

  const handlePaste = (index: number, event: ClipboardEvent<HTMLInputElement>) => {
    event.preventDefault();
    const digits = onlyDigits(event.clipboardData.getData('text'));
    if (!digits) return;
    // A complete code always starts at the first box, wherever the caret was.
    fillFrom(digits.length >= length ? 0 : index, digits);
  };

  return (
    <Box role="group" aria-label={label} sx={{ display: 'flex', gap: { xs: 1, sm: 1.5 }, justifyContent: 'center' }}>
      {value.map((digit, index) => (
        <InputBase
          key={index}
          inputRef={(element: HTMLInputElement | null) => {
            refs.current[index] = element;
          }}
          value={digit}
          disabled={disabled}
          autoFocus={autoFocus && index === 0}
          onChange={(event) => handleChange(index, event.target.value)}
          onKeyDown={(event) => handleKeyDown(index, event as KeyboardEvent<HTMLInputElement>)}
          onPaste={(event) => handlePaste(index, event as ClipboardEvent<HTMLInputElement>)}
          onFocus={(event) => (event.target as HTMLInputElement).select()}
          inputProps={{
            inputMode: 'numeric',
            pattern: '[0-9]*',
            maxLength: length,
            autoComplete: index === 0 ? 'one-time-code' : 'off',
            'aria-label': `Digit ${index + 1} of ${length}`,
          }}
          sx={(theme) => ({
            width: { xs: 44, sm: 52 },
            height: { xs: 52, sm: 60 },
            border: `1.5px solid ${digit ? theme.palette.primary.main : theme.palette.divider}`,
            borderRadius: 2,
            backgroundColor: 'background.paper',
            fontSize: 24,
            fontWeight: 700,
            transition: 'border-color 120ms, box-shadow 120ms',
            '&.Mui-focused': {
              borderColor: theme.palette.primary.main,
              boxShadow: `0 0 0 3px ${theme.palette.primary.main}33`,
            },
            '& input': { textAlign: 'center', padding: 0, height: '100%' },
          })}
        />
      ))}
    </Box>
  );
}
