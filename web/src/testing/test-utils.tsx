import { ThemeProvider } from '@mui/material/styles';
import type { User } from '@medshare/contracts';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
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

/** Renders routes in memory with the app's store and theme, starting at `path`. */
export function renderRoutes(routes: RouteObject[], path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = render(
    <Provider store={store}>
      <ThemeProvider theme={theme}>
        <RouterProvider router={router} />
      </ThemeProvider>
    </Provider>,
  );
  return { ...result, router };
}

/** Renders one element at '/' (for components that need a router and the store). */
export function renderWithProviders(ui: ReactElement, path = '/') {
  return renderRoutes([{ path: '*', element: ui }], path);
}
