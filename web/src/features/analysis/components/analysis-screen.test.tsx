import { type Analysis, type AnalysisResult, ApiPaths, type PublicSettings } from '@medshare/contracts';
import { AnalysisTexts } from '@medshare/contracts/analysis-text';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { type RequestHandler, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { api, failure, ok, paged } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { renderRoutes } from '../../../testing/test-utils';
import { formatAnalysisTime, formatConfidence } from '../utils/format';
import { AnalysisScreen } from './analysis-screen';

const IMAGE = '0b6e4c2a-3f1d-4c8e-9a7b-5d2e1f0c9b8a';
const routes = [
  { path: '/ai-analysis/:id', element: <AnalysisScreen imageId={IMAGE} /> },
  { path: '/view-images', element: <h1>View Images page</h1> },
];

function analysis(overrides: Partial<Analysis> = {}): Analysis {
  return {
    id: '4a1f7e0b-8c2d-4e6f-9a1b-2c3d4e5f6a7b',
    imageId: IMAGE,
    timestamp: '2026-03-14T09:30:00.000Z',
    provider: 'openai',
    model: 'vision-1',
    disclaimer: AnalysisTexts.disclaimer,
    description: 'A **frontal** chest radiograph.',
    differentialDiagnosis: [
      { condition: '**Pneumonia**', confidence: 0.734 },
      { condition: 'Atelectasis', confidence: 0.2 },
    ],
    treatment: ['Consider **antibiotics**'],
    followUp: ['Repeat film in 6 weeks'],
    warnings: ['Single view'],
    confidence: 0.61,
    ...overrides,
  };
}

/** The API answering `handlers`, and 404 to anything else (the public settings then fall back to defaults). */
function stubApi(...handlers: RequestHandler[]) {
  server.use(
    ...handlers,
    http.all('/api/*', () => failure(404, 'Not found')),
  );
}

const result = `${ApiPaths.analysis}/${IMAGE}`;
const settings = api.get<PublicSettings>('/appsetting/public', () =>
  ok({
    displayLocale: 'en-GB',
    displayTimeZone: 'Europe/London',
    maxUploadMb: 10,
    maxImportFiles: 2000,
    maxImportMb: 2048,
  }),
);

describe('AI analysis screen', () => {
  it('shows Analyzing, then every section with ** stripped and confidences as percentages', async () => {
    const shown = analysis();
    stubApi(
      settings,
      api.get<AnalysisResult>(result, () => ok({ ...shown, reused: true })),
      api.get<Analysis[]>(`${result}/history`, () => paged([shown], { pageSize: 50 })),
    );
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(screen.getByRole('status')).toHaveTextContent('Analyzing');

    for (const name of [
      'Description',
      'Differential Diagnosis',
      'Treatment',
      'Follow-Up',
      'Warnings',
      'Confidence Score',
    ])
      expect(await screen.findByRole('heading', { name, level: 2 })).toBeInTheDocument();
    expect(screen.getByText('A frontal chest radiograph.')).toBeInTheDocument();
    const differential = screen.getByRole('region', { name: 'Differential Diagnosis' });
    expect(within(differential).getByText('Pneumonia')).toBeInTheDocument();
    expect(within(differential).getByText('73%')).toBeInTheDocument();
    expect(within(differential).getByText('20%')).toBeInTheDocument();
    expect(screen.getByText('Consider antibiotics')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Confidence Score' })).getByText('61%')).toBeInTheDocument();
    expect(document.body.textContent).not.toContain('**');
    expect(screen.getByText(AnalysisTexts.disclaimer)).toBeInTheDocument();
    expect(screen.getByText('AI model vision-1 (OpenAI-compatible)')).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByText(/Analysis generated at/)).toHaveTextContent(
        formatAnalysisTime(shown.timestamp, { displayLocale: 'en-GB', displayTimeZone: 'Europe/London' }),
      ),
    );
    // The history is its own request: it may answer after the result and the settings.
    expect(await screen.findByRole('heading', { name: 'Earlier results' })).toBeInTheDocument();
  });

  it('shows a local report with no diagnosis and the no-model warning', async () => {
    const local = analysis({
      provider: 'local',
      model: 'medshare-image-statistics-1',
      description: 'Technical report for a JPEG image.',
      differentialDiagnosis: [],
      treatment: [],
      followUp: [],
      warnings: [AnalysisTexts.noDiagnosticModel],
      confidence: 0,
    });
    stubApi(
      api.get<AnalysisResult>(result, () => ok({ ...local, reused: false })),
      api.get<Analysis[]>(`${result}/history`, () => ok([local])),
    );
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(await screen.findByText(/never suggests a diagnosis/)).toBeInTheDocument();
    expect(screen.getByText(AnalysisTexts.noDiagnosticModel)).toBeInTheDocument();
    expect(screen.getByText('Local technical report (no diagnostic model)')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Confidence Score' })).getByText('0%')).toBeInTheDocument();
  });

  it('re-runs on request, shows the new result and lists both in the history', async () => {
    const first = analysis();
    const second = analysis({
      id: '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      timestamp: '2026-03-14T10:00:00.000Z',
      description: 'Second look.',
    });
    let runs = 0;
    stubApi(
      api.get<AnalysisResult>(result, () => ok({ ...first, reused: true })),
      api.post<AnalysisResult>(`${result}/run`, () => {
        runs += 1;
        return ok({ ...second, reused: false }, undefined, 201);
      }),
      api.get<Analysis[]>(`${result}/history`, () => ok(runs ? [second, first] : [first])),
    );
    const user = userEvent.setup();
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    await user.click(await screen.findByRole('button', { name: 'Re-run' }));
    expect(await screen.findByText('Second look.')).toBeInTheDocument();
    expect(runs).toBe(1);
    await waitFor(() => expect(screen.getAllByRole('button', { name: /confidence 61%/ })).toHaveLength(2));
    // Choosing the earlier one shows it, marked as earlier.
    await user.click(screen.getAllByRole('button', { name: /confidence 61%/ })[1]!);
    expect(await screen.findByText('A frontal chest radiograph.')).toBeInTheDocument();
    expect(screen.getByText(/earlier result/)).toBeInTheDocument();
  });

  it('shows the stored result again on coming back without asking the server (or the provider) again', async () => {
    const shown = analysis();
    stubApi(
      settings,
      api.get<AnalysisResult>(result, () => ok({ ...shown, reused: false })),
      api.get<Analysis[]>(`${result}/history`, () => ok([shown])),
    );
    const requests = recordRequests();
    const first = renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(await screen.findByText('A frontal chest radiograph.')).toBeInTheDocument();
    first.unmount();
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(screen.getByText('A frontal chest radiograph.')).toBeInTheDocument();
    expect(requests.filter((r) => new URL(r.url).pathname === `/api${result}`)).toHaveLength(1);
  });

  it('says "Image not found or not available" on 404', async () => {
    stubApi();
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(await screen.findByText('Image not found or not available')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
  });

  it('shows the server message of a 504 and of a 502 from a re-run without losing the result', async () => {
    stubApi(api.get(result, () => failure(504, 'The analysis provider did not answer within 60 seconds.')));
    const timedOut = renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    expect(await screen.findByText('The analysis provider did not answer within 60 seconds.')).toBeInTheDocument();
    // Leaving the screen and coming back asks again: a failure is not kept as the answer.
    timedOut.unmount();
    server.resetHandlers();

    stubApi(
      api.get<AnalysisResult>(result, () => ok({ ...analysis(), reused: true })),
      api.post(`${result}/run`, () => failure(502, AnalysisTexts.badProviderAnswer)),
    );
    const user = userEvent.setup();
    renderRoutes(routes, `/ai-analysis/${IMAGE}`);
    await user.click(await screen.findByRole('button', { name: 'Re-run' }));
    expect(await screen.findByText(AnalysisTexts.badProviderAnswer)).toBeInTheDocument();
    expect(screen.getByText('A frontal chest radiograph.')).toBeInTheDocument();
  });
});

describe('formatConfidence', () => {
  it('rounds a 0..1 value to a whole percentage and clamps out-of-range values', () => {
    expect(formatConfidence(0.734)).toBe('73%');
    expect(formatConfidence(0.005)).toBe('1%');
    expect(formatConfidence(0)).toBe('0%');
    expect(formatConfidence(1.2)).toBe('100%');
    expect(formatConfidence(Number.NaN)).toBe('0%');
  });
});
