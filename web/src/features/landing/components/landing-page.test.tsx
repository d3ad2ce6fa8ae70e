import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PRERENDERED_ID } from '../../../lib/prerendered';
import { renderWithProviders } from '../../../testing/test-utils';
import { LandingPage } from './landing-page';

afterEach(() => document.getElementById(PRERENDERED_ID)?.remove());

describe('LandingPage and its prerendered copy (lib/prerendered.ts)', () => {
  it('removes the static copy served at / once it has rendered the page itself', async () => {
    const copy = document.createElement('div');
    copy.id = PRERENDERED_ID;
    copy.innerHTML = '<h1>Medical images, shared securely with exactly the right people.</h1>';
    document.body.prepend(copy);
    renderWithProviders(<LandingPage />);
    expect(
      await screen.findByRole('heading', { level: 1, name: /shared securely with exactly the right people/ }),
    ).toBeInTheDocument();
    expect(document.getElementById(PRERENDERED_ID)).toBeNull();
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
  });
});
