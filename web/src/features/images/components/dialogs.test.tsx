import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type {
  Share,
  ShareRequestBody,
  ShareVerifyBody,
  ShareVerifyResponseData,
  UserListItem,
} from '@medshare/contracts';
import { describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { api, failure, ok, paged } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { PROVIDER, makeImage, pendingShare } from '../testing-fixtures';
import { ShareDialog } from './share-dialog';
import { VerifyDialog } from './verify-dialog';

const page = { currentPage: 1, pageSize: 20, totalPages: 1, totalItems: 2, hasPrevPage: false, hasNextPage: false };
const colleague: UserListItem = {
  id: '22222222-2222-4222-8222-222222222222',
  firstname: 'Sara',
  lastname: 'Ali',
  email: 'sara@example.test',
  role: 'healthProvider',
  gender: null,
};
const patient: UserListItem = {
  id: '33333333-3333-4333-8333-333333333333',
  firstname: 'Amina',
  lastname: 'Khan',
  email: 'amina@example.test',
  role: 'patient',
  gender: null,
};
const patientShare: Share = {
  id: '88888888-8888-4888-8888-888888888888',
  imageId: makeImage().id,
  recipient: { id: patient.id, firstname: 'Amina', lastname: 'Khan', role: 'patient' },
  createdBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
  state: 'verified',
  isPatientShare: true,
  expiresAt: null,
  verifiedAt: '2026-11-22T05:00:00.000Z',
  revokedAt: null,
  createdAt: '2026-11-22T04:00:00.000Z',
};

/** The sharing API the dialog talks to; every request it receives is recorded. */
function shareServer() {
  server.use(
    api.get<UserListItem[]>('/users', () => paged([colleague, patient], page)),
    api.get<Share[]>('/sharing/image/:imageId', () => ok([patientShare])),
    api.post<Share, ShareRequestBody>('/sharing/request', () =>
      ok(
        {
          ...patientShare,
          id: '99999999-9999-4999-8999-999999999999',
          recipient: { id: colleague.id, firstname: 'Sara', lastname: 'Ali', role: 'healthProvider' },
          state: 'pending',
          isPatientShare: false,
        },
        'Image shared successfully',
        201,
      ),
    ),
    api.delete<Share>('/sharing/:sharingId', () => ok({ ...patientShare, state: 'revoked' }, 'Share revoked')),
  );
  return recordRequests();
}

describe('ShareDialog', () => {
  it('lists users with a role badge, sends {imagemetadataId, createdfor, expiresInHours}, closes and reloads', async () => {
    const requests = shareServer();
    const onClose = vi.fn();
    const onShared = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(
      <ShareDialog
        image={makeImage()}
        viewerId={PROVIDER.id}
        locale="en-PK"
        timeZone="Asia/Karachi"
        onClose={onClose}
        onShared={onShared}
      />,
    );
    const users = await screen.findByRole('list', { name: 'Users to share with' });
    const sara = within(users).getByRole('button', { name: /Sara Ali/ });
    expect(within(sara).getByText('Health Provider')).toBeInTheDocument();
    expect(within(users).getByText('Patient')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Search users by name'), 'Sar');
    await vi.waitFor(() =>
      expect(requests.some((r) => new URL(r.url).searchParams.get('search') === 'Sar')).toBe(true),
    );
    await user.click(sara);
    await user.clear(screen.getByLabelText(/^Expires in/));
    await user.type(screen.getByLabelText(/^Expires in/), '48');
    await user.click(screen.getByRole('button', { name: 'Share' }));

    await vi.waitFor(() => expect(onShared).toHaveBeenCalled());
    const call = requests.find((r) => r.method === 'POST' && new URL(r.url).pathname === '/api/sharing/request')!;
    expect(await call.json()).toEqual({
      imagemetadataId: makeImage().id,
      createdfor: colleague.id,
      expiresInHours: 48,
    });
    expect(onClose).toHaveBeenCalled();
  });

  it('offers 24 hours by default and disables Share until a user is chosen', async () => {
    shareServer();
    renderWithProviders(
      <ShareDialog
        image={makeImage()}
        viewerId={PROVIDER.id}
        locale="en-PK"
        timeZone="Asia/Karachi"
        onClose={vi.fn()}
        onShared={vi.fn()}
      />,
    );
    expect(screen.getByLabelText(/^Expires in/)).toHaveValue(24);
    expect(screen.getByRole('button', { name: 'Share' })).toBeDisabled();
  });

  it("lists the image's shares with their state and revokes one with DELETE /api/sharing/:id", async () => {
    const requests = shareServer();
    const success = vi.spyOn(toast, 'success');
    const user = userEvent.setup();
    renderWithProviders(
      <ShareDialog
        image={makeImage()}
        viewerId={PROVIDER.id}
        locale="en-PK"
        timeZone="Asia/Karachi"
        onClose={vi.fn()}
        onShared={vi.fn()}
      />,
    );
    const shares = await screen.findByRole('list', { name: 'Shares of this image' });
    expect(within(shares).getByText('verified')).toBeInTheDocument();
    await user.click(within(shares).getByRole('button', { name: 'Revoke share with Amina Khan' }));
    await vi.waitFor(() => expect(success).toHaveBeenCalledWith('Share revoked', { position: 'bottom-left' }));
    const call = requests.find((r) => r.method === 'DELETE')!;
    expect(new URL(call.url).pathname).toBe(`/api/sharing/${patientShare.id}`);
  });
});

describe('VerifyDialog', () => {
  it('prefills the sharing id, sends {sharingRequestId, verificationCode}, closes and reloads', async () => {
    const image = pendingShare();
    server.use(
      api.post<ShareVerifyResponseData, ShareVerifyBody>('/sharing/verify', () =>
        ok(
          { sharingId: image.sharingId!, imageId: image.id, verifiedAt: '2026-11-22T06:00:00.000Z', expiresAt: null },
          'Image verified successfully',
        ),
      ),
    );
    const requests = recordRequests();
    const onClose = vi.fn();
    const onVerified = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<VerifyDialog image={image} onClose={onClose} onVerified={onVerified} />);
    expect(screen.getByLabelText(/^Image sharing id/)).toHaveValue(image.sharingId);
    await user.type(screen.getByLabelText(/^Verification code/), '12a3456');
    expect(screen.getByLabelText(/^Verification code/)).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await vi.waitFor(() => expect(onVerified).toHaveBeenCalled());
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe('POST');
    expect(new URL(requests[0]!.url).pathname).toBe('/api/sharing/verify');
    expect(await requests[0]!.json()).toEqual({ sharingRequestId: image.sharingId, verificationCode: '123456' });
    expect(onClose).toHaveBeenCalled();
  });

  it('shows a wrong code in a toast and keeps the dialog open', async () => {
    server.use(
      api.post<ShareVerifyResponseData>('/sharing/verify', () =>
        failure(400, 'Invalid verification code', {
          errors: [{ field: 'verificationCode', message: 'Invalid verification code' }],
        }),
      ),
    );
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const error = vi.spyOn(toast, 'error');
    const onClose = vi.fn();
    const user = userEvent.setup();
    renderWithProviders(<VerifyDialog image={pendingShare()} onClose={onClose} onVerified={vi.fn()} />);
    await user.type(screen.getByLabelText(/^Verification code/), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await vi.waitFor(() =>
      expect(error).toHaveBeenCalledWith('verificationCode: Invalid verification code', { position: 'bottom-left' }),
    );
    expect(onClose).not.toHaveBeenCalled();
  });

  it('asks for 6 digits before calling the server', async () => {
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<VerifyDialog image={pendingShare()} onClose={vi.fn()} onVerified={vi.fn()} />);
    await user.type(screen.getByLabelText(/^Verification code/), '123');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Enter the 6-digit code from the e-mail.')).toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });
});
