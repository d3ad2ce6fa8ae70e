import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { recordRequests } from '../../../testing/server';
import { renderRoutes } from '../../../testing/test-utils';
import AiAnalysisRoute from './ai-analysis';

describe('/ai-analysis route', () => {
  it('explains the page and links to View Images when no image id is given', async () => {
    const requests = recordRequests();
    renderRoutes([{ path: '/ai-analysis/:id?', element: <AiAnalysisRoute /> }], '/ai-analysis');
    expect(screen.getByRole('heading', { name: 'AI Medical Analysis', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
    // The server sees a request a few ticks after fetch is called: let any the page would make arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toHaveLength(0);
  });
});
