import type { PublicSettings } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { api, ok } from '../testing/handlers';
import { recordRequests, requestsTo, server } from '../testing/server';
import { renderWithProviders } from '../testing/test-utils';
import { DEFAULT_PUBLIC_SETTINGS, prefetchPublicSettings, usePublicSettings } from './public-settings';
import { store } from './store';

const TOKYO: PublicSettings = { ...DEFAULT_PUBLIC_SETTINGS, displayLocale: 'ja-JP', displayTimeZone: 'Asia/Tokyo' };

/** Every time zone a page drew its dates in, in order. */
function DatesPage({ drawn }: { drawn: string[] }) {
  const { displayTimeZone } = usePublicSettings();
  drawn.push(displayTimeZone);
  return <p>{`Dates in ${displayTimeZone}`}</p>;
}

describe('public settings read at start-up (prefetchPublicSettings)', () => {
  it("gives a page mounted after it the instance's time zone on its first render, from the one read", async () => {
    server.use(api.get<PublicSettings>('/appsetting/public', () => ok(TOKYO)));
    const seen = recordRequests();
    prefetchPublicSettings(store.dispatch);
    await vi.waitFor(() => expect(requestsTo(seen, 'GET', '/appsetting/public')).toHaveLength(1));
    // What app/preload-route.ts starts before the page's chunks have arrived.
    await vi.waitFor(() =>
      expect(store.getState().api.queries['getPublicSettings(undefined)']?.status).toBe('fulfilled'),
    );

    const drawn: string[] = [];
    renderWithProviders(<DatesPage drawn={drawn} />);
    expect(await screen.findByText('Dates in Asia/Tokyo')).toBeInTheDocument();
    expect(drawn[0]).toBe('Asia/Tokyo');
    expect(requestsTo(seen, 'GET', '/appsetting/public')).toHaveLength(1);
  });

  it('without it, the page first draws the defaults and redraws when the answer comes', async () => {
    server.use(api.get<PublicSettings>('/appsetting/public', () => ok(TOKYO)));
    const drawn: string[] = [];
    renderWithProviders(<DatesPage drawn={drawn} />);
    expect(await screen.findByText('Dates in Asia/Tokyo')).toBeInTheDocument();
    expect(drawn[0]).toBe(DEFAULT_PUBLIC_SETTINGS.displayTimeZone);
  });
});
