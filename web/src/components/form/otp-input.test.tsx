import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { emptyOtp, OtpInput } from './otp-input';

function Harness() {
  const [digits, setDigits] = useState(() => emptyOtp(6));
  return <OtpInput label="Verification code" value={digits} onChange={setDigits} />;
}

const boxes = () => screen.getAllByRole('textbox') as HTMLInputElement[];
const values = () => boxes().map((box) => box.value);

describe('OtpInput', () => {
  it('renders six single-digit boxes, each with its own label', () => {
    render(<Harness />);
    expect(boxes()).toHaveLength(6);
    expect(screen.getByLabelText('Digit 1 of 6')).toBeInTheDocument();
    expect(screen.getByLabelText('Digit 6 of 6')).toBeInTheDocument();
  });

  it('fills all six boxes when a six-digit code is pasted into any box', () => {
    render(<Harness />);
    fireEvent.paste(boxes()[3]!, { clipboardData: { getData: () => ' 482 913 ' } });
    expect(values()).toEqual(['4', '8', '2', '9', '1', '3']);
  });

  it('refuses letters and symbols, typed or pasted', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(boxes()[0]!);
    await user.keyboard('a-');
    expect(values()).toEqual(['', '', '', '', '', '']);
    fireEvent.paste(boxes()[0]!, { clipboardData: { getData: () => 'abcdef' } });
    expect(values()).toEqual(['', '', '', '', '', '']);
  });

  it('keeps one digit per box and moves on after each digit', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(boxes()[0]!);
    await user.keyboard('12x3');
    expect(values()).toEqual(['1', '2', '3', '', '', '']);
    expect(boxes()[3]).toHaveFocus();
  });

  it('goes back and clears the previous box on Backspace in an empty box', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(boxes()[0]!);
    await user.keyboard('12');
    await user.keyboard('{Backspace}');
    expect(values()).toEqual(['1', '', '', '', '', '']);
    expect(boxes()[1]).toHaveFocus();
  });

  it('moves on when the typed digit equals the one already in the box (retyping a code)', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(boxes()[0]!);
    await user.keyboard('147091');
    await user.click(boxes()[0]!);
    await user.keyboard('147090');
    expect(values()).toEqual(['1', '4', '7', '0', '9', '0']);
    expect(boxes()[5]).toHaveFocus();
  });

  it('clears a filled box on Backspace wherever the caret is, then walks back box by box', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(boxes()[0]!);
    await user.keyboard('123456');
    // The caret before the digit: the browser alone would delete nothing.
    boxes()[5]!.setSelectionRange(0, 0);
    await user.keyboard('{Backspace}');
    expect(values()).toEqual(['1', '2', '3', '4', '5', '']);
    await user.keyboard('{Backspace}{Backspace}');
    expect(values()).toEqual(['1', '2', '3', '', '', '']);
    expect(boxes()[3]).toHaveFocus();
    await user.keyboard('9');
    expect(values()).toEqual(['1', '2', '3', '9', '', '']);
  });

  it('spreads a code that a phone autofills into one box over all six, from the first', () => {
    render(<Harness />);
    expect(boxes()[0]).toHaveAttribute('autocomplete', 'one-time-code');
    fireEvent.change(boxes()[2]!, { target: { value: '482913' } });
    expect(values()).toEqual(['4', '8', '2', '9', '1', '3']);
  });
});
