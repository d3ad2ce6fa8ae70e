import type { PasswordIdentity } from '@medshare/contracts/password-policy';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { PasswordField } from './password-field';
import { PasswordRules, passwordRulesSummaryId, usePasswordCheck } from './password-rules';

function Harness({ identity }: { identity: PasswordIdentity }) {
  const [password, setPassword] = useState('');
  const check = usePasswordCheck(password, identity);
  return (
    <>
      <PasswordField
        label="New password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        helperText={password === 'refused now' ? 'Choose a password that meets every rule below.' : undefined}
        describedBy={passwordRulesSummaryId('rules')}
      />
      <PasswordRules check={check} id="rules" />
      <span data-testid="refused">{String(check.refused)}</span>
    </>
  );
}

const amina = { email: 'amina.khan@example.test', username: 'akhan2024' };
const rule = (name: string) =>
  screen.getByRole('list', { name: 'Rules for your new password' }).querySelector(`[data-rule="${name}"]`)!;
const stateOf = (name: string) => rule(name).getAttribute('data-state');
const strength = () => screen.getByTestId('password-strength').textContent;

async function typeInto(password: string) {
  const user = userEvent.setup();
  const field = screen.getByLabelText('New password');
  await user.clear(field);
  if (password) await user.type(field, password);
}

describe('PasswordRules', () => {
  it('describes the password field by where it stands against the rules, after its own error', async () => {
    render(<Harness identity={amina} />);
    const field = screen.getByLabelText('New password');
    expect(field).toHaveAccessibleDescription(/^Rules: 10 to 128 characters; Not a common password;/);
    await typeInto('short');
    expect(field).toHaveAccessibleDescription(/^\d of 4 password rules met.*Strength: Too weak\.$/);
    await typeInto('refused now');
    expect(field).toHaveAccessibleDescription(
      /^Choose a password that meets every rule below\. \d of 4 password rules met/,
    );
  });

  it('lists every rule, none met, before anything is typed', () => {
    render(<Harness identity={amina} />);
    const items = within(screen.getByRole('list', { name: 'Rules for your new password' })).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      '10 to 128 characters: not met',
      'Not a common password: not met',
      'Does not contain your e-mail or username: not met',
      'Not one character repeated: not met',
    ]);
    expect(strength()).toBe('Strength: —');
  });

  it('updates each rule while typing, in words as well as icons', async () => {
    render(<Harness identity={amina} />);
    await typeInto('short');
    expect(stateOf('length')).toBe('unmet');
    expect(rule('length').textContent).toBe('10 to 128 characters: not met');
    expect(strength()).toBe('Strength: Too weak');

    // The dictionary arrives by dynamic import; a common password is then refused.
    await typeInto('qwertyuiop');
    await waitFor(() => expect(stateOf('common')).toBe('unmet'));
    expect(stateOf('length')).toBe('met');
    expect(screen.getByTestId('refused').textContent).toBe('true');

    await typeInto('my akhan2024 passphrase');
    expect(stateOf('identity')).toBe('unmet');

    await typeInto('§§§§§§§§§§');
    expect(stateOf('repeated')).toBe('unmet');

    await typeInto('correct horse battery staple');
    await waitFor(() => expect(strength()).toBe('Strength: Strong'));
    expect(['length', 'common', 'identity', 'repeated'].map(stateOf)).toEqual(['met', 'met', 'met', 'met']);
    expect(screen.getByTestId('refused').textContent).toBe('false');
  });

  it('leaves the identity rule to the server when the account is not known, and then never says "Strong"', async () => {
    render(<Harness identity={{}} />);
    await typeInto('correct horse battery staple');
    await waitFor(() => expect(stateOf('common')).toBe('met'));
    expect(stateOf('identity')).toBe('unknown');
    expect(rule('identity').textContent).toBe('Does not contain your e-mail or username (checked when you submit)');
    expect(strength()).toBe('Strength: Good');
    expect(screen.getByTestId('refused').textContent).toBe('false');
  });

  it('announces a settled summary politely instead of every keystroke', async () => {
    render(<Harness identity={amina} />);
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('');
    await typeInto('qwertyuiop');
    // Ten keystrokes in quick succession: nothing said yet.
    expect(status.textContent).toBe('');
    await waitFor(() => expect(status.textContent).toBe('3 of 4 password rules met. Strength: Too weak.'), {
      timeout: 3000,
    });
  });
});
