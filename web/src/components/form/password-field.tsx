import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField, { type TextFieldProps } from '@mui/material/TextField';
import { useId, useState } from 'react';

/**
 * A password input with a show/hide toggle that screen readers announce. `describedBy` names more
 * text the input is described by (the rules checklist), after its helper text.
 */
export function PasswordField({ describedBy, ...props }: Omit<TextFieldProps, 'type'> & { describedBy?: string }) {
  const [visible, setVisible] = useState(false);
  const ownId = useId();
  const id = props.id ?? ownId;
  // MUI describes the input by its helper text alone; an explicit list must name both.
  const described = [props.helperText ? `${id}-helper-text` : null, describedBy].filter(Boolean).join(' ');
  return (
    <TextField
      {...props}
      id={id}
      type={visible ? 'text' : 'password'}
      slotProps={{
        ...props.slotProps,
        htmlInput: described ? { 'aria-describedby': described } : undefined,
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <IconButton
                aria-label={visible ? 'Hide password' : 'Show password'}
                aria-pressed={visible}
                onClick={() => setVisible((v) => !v)}
                onMouseDown={(event) => event.preventDefault()}
                edge="end"
              >
                {visible ? <VisibilityOffIcon /> : <VisibilityIcon />}
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
