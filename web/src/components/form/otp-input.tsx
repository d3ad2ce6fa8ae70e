import Box from '@mui/material/Box';
import InputBase from '@mui/material/InputBase';
import { useEffect, useEffectEvent, useRef, type ClipboardEvent, type KeyboardEvent } from 'react';

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
 * One box per digit: digits only, one per box, typing moves on, Backspace clears the box and then
 * walks back, and pasting (or a phone's one-time-code autofill) spreads a whole code over the boxes.
 *
 * Typed text is taken in `beforeinput`, before the browser touches the box: a change event alone
 * never fires when the new digit equals the one already there, and the focus then stayed put, so
 * retyping 147090 over 147091 scrambled the code into 470901.
 */
export function OtpInput({ value, onChange, label, disabled, autoFocus }: OtpInputProps) {
  const refs = useRef<Array<HTMLInputElement | null>>([]);
  const length = value.length;

  const focusBox = (index: number) => {
    const box = refs.current[Math.max(0, Math.min(length - 1, index))];
    box?.focus();
    box?.select();
  };

  /** Writes digits from box `start` on; a complete code always starts at the first box. */
  const fillFrom = (start: number, digits: string) => {
    const next = [...value];
    let index = digits.length >= length ? 0 : start;
    for (const digit of digits) {
      if (index >= length) break;
      next[index] = digit;
      index += 1;
    }
    onChange(next);
    focusBox(index >= length ? length - 1 : index);
  };

  const handleBeforeInput = useEffectEvent((index: number, event: InputEvent) => {
    const { data } = event;
    if (!data) return; // nothing typed (a deletion, an autofill): onChange takes it
    event.preventDefault();
    const digits = onlyDigits(data);
    if (digits) fillFrom(index, digits);
  });

  // The native event: React's onBeforeInput is built from other events and misses some browsers'.
  useEffect(() => {
    const boxes = refs.current.slice(0, length);
    const listeners = boxes.map((_, index) => (event: Event) => handleBeforeInput(index, event as InputEvent));
    boxes.forEach((box, index) => box?.addEventListener('beforeinput', listeners[index]!));
    return () => boxes.forEach((box, index) => box?.removeEventListener('beforeinput', listeners[index]!));
  }, [length]);

  // Reached only by what beforeinput let through: an autofill that sets the value, or a browser
  // without beforeinput.
  const handleChange = (index: number, raw: string): void => {
    const digits = onlyDigits(raw);
    if (raw !== '' && digits === '') return; // a letter or symbol: the box keeps what it had
    const previous = value[index] ?? '';
    if (digits.length === 2 && previous) {
      // A digit typed into a full box without selecting it: keep the new one, whichever side.
      handleChange(index, digits.startsWith(previous) ? digits.slice(1) : digits.slice(0, 1));
      return;
    }
    if (digits.length > 1) {
      fillFrom(index, digits);
      return;
    }
    const next = [...value];
    next[index] = digits;
    onChange(next);
    if (digits && index < length - 1) focusBox(index + 1);
  };

  const handleKeyDown = (index: number, event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Backspace' || event.key === 'Delete') {
      // Handled here, not by the browser: with the caret before the digit the browser deletes nothing.
      event.preventDefault();
      const next = [...value];
      if (value[index]) {
        next[index] = '';
        onChange(next);
      } else if (event.key === 'Backspace' && index > 0) {
        next[index - 1] = '';
        onChange(next);
        focusBox(index - 1);
      }
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
    if (digits) fillFrom(index, digits);
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
