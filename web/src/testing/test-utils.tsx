import { ThemeProvider } from '@mui/material/styles';
import type { User } from '@medshare/contracts';
import { render } from '@testing-library/react';
import { useLayoutEffect, type ReactElement } from 'react';
import { Provider } from 'react-redux';
import {
  MemoryRouter,
  useLocation,
  useNavigate,
  type Location,
  type NavigateFunction,
  type RouteObject,
} from 'react-router';
import { RoutesWithBoundary } from '../app/route-error';
import { theme } from '../components/theme/theme';
import { store } from '../lib/store';

export function makeUser(overrides: Partial<User> = {}): User {
  return {
    id: '6f1c1d0e-4b8a-4d5e-9a43-2b7f0c9e1a11',
    firstname: 'Amina',
    lastname: 'Khan',
    username: 'akhan',
    email: 'amina@example.test',
    role: 'patient',
    active: true,
    emailVerified: true,
    phone: null,
    dob: null,
    gender: null,
    address: null,
    city: null,
    state: null,
    country: null,
    zipcode: null,
    bio: null,
    taxid: null,
    licensenumber: null,
    insurancenumber: null,
    specialization: null,
    bloodgroup: null,
    primphysician: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Where the rendered routes are, and a way to move them, for a test to read and drive. */
export type TestRouter = { state: { location: Location }; navigate: NavigateFunction };

/**
 * Renders routes in memory with the app's store and theme, starting at `path`, the way the app
 * renders its own (RoutesWithBoundary: React Router's declarative mode, behind RouteError).
 */
export function renderRoutes(routes: RouteObject[], path: string) {
  const router = { state: {} } as TestRouter;
  function Probe() {
    const location = useLocation();
    const navigate = useNavigate();
    // Kept current for the test after each commit (a test reads it outside React).
    useLayoutEffect(() => {
      router.state.location = location;
      router.navigate = navigate;
    });
    return null;
  }
  const result = render(
    <Provider store={store}>
      <ThemeProvider theme={theme}>
        <MemoryRouter initialEntries={[path]}>
          <Probe />
          <RoutesWithBoundary routes={routes} />
        </MemoryRouter>
      </ThemeProvider>
    </Provider>,
  );
  return { ...result, router };
}

/** Renders one element at '/' (for components that need a router and the store). */
export function renderWithProviders(ui: ReactElement, path = '/') {
  return renderRoutes([{ path: '*', element: ui }], path);
}
