import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { jsonResponse, renderWithProviders } from '../../../testing/test-utils';
import { PROVIDER, makeImage, pendingShare } from '../testing-fixtures';
import { ShareDialog } from './share-dialog';
import { VerifyDialog } from './verify-dialog';

const page = { currentPage: 1, pageSize: 20, totalPages: 1, totalItems: 2, hasPrevPage: false, hasNextPage: false };
const colleague = {
  id: '22222222-2222-4222-8222-222222222222',
  firstname: 'Sara',
  lastname: 'Ali',
  email: 'sara@example.test',
  role: 'healthProvider',
  gender: null,
};
const patient = {
  id: '33333333-3333-4333-8333-333333333333',
  firstname: 'Amina',
  lastname: 'Khan',
  email: 'amina@example.test',
  role: 'patient',
  gender: null,
};
const patientShare = {
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

function shareServer() {
  return vi.fn<typeof fetch>(async (input, init) => {
    const url = String(input);
    if (url.startsWith('/api/users'))
      return jsonResponse(200, { success: true, data: [colleague, patient], pagination: page });
    if (url.startsWith('/api/sharing/image/')) return jsonResponse(200, { success: true, data: [patientShare] });
    if (url === '/api/sharing/request' && init?.method === 'POST')
      return jsonResponse(201, { success: true, message: 'Image shared successfully', data: {} });
    if (url.startsWith('/api/sharing/') && init?.method === 'DELETE')
      return jsonResponse(200, {
        success: true,
        message: 'Share revoked',
        data: { ...patientShare, state: 'revoked' },
      });
    return jsonResponse(404, { success: false, message: 'not found' });
  });
}

describe('ShareDialog', () => {
  it('lists users with a role badge, sends {imagemetadataId, createdfor, expiresInHours}, closes and reloads', async () => {
    const fetchMock = shareServer();
    vi.stubGlobal('fetch', fetchMock);
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
    await vi.waitFor(() => expect(fetchMock.mock.calls.some(([u]) => String(u).includes('search=Sar'))).toBe(true));
    await user.click(sara);
    await user.clear(screen.getByLabelText(/^Expires in/));
    await user.type(screen.getByLabelText(/^Expires in/), '48');
    await user.click(screen.getByRole('button', { name: 'Share' }));

    await vi.waitFor(() => expect(onShared).toHaveBeenCalled());
    const call = fetchMock.mock.calls.find(([u]) => u === '/api/sharing/request')!;
    expect(JSON.parse(String(call[1]?.body))).toEqual({
      imagemetadataId: makeImage().id,
      createdfor: colleague.id,
      expiresInHours: 48,
    });
    expect(onClose).toHaveBeenCalled();
  });

  it('offers 24 hours by default and disables Share until a user is chosen', async () => {
    vi.stubGlobal('fetch', shareServer());
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
    const fetchMock = shareServer();
    vi.stubGlobal('fetch', fetchMock);
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
    const call = fetchMock.mock.calls.find(([, init]) => init?.method === 'DELETE')!;
    expect(call[0]).toBe(`/api/sharing/${patientShare.id}`);
  });
});

describe('VerifyDialog', () => {
  it('prefills the sharing id, sends {sharingRequestId, verificationCode}, closes and reloads', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValue(jsonResponse(200, { success: true, message: 'Image verified successfully', data: {} }));
    vi.stubGlobal('fetch', fetchMock);
    const onClose = vi.fn();
    const onVerified = vi.fn();
    const user = userEvent.setup();
    const image = pendingShare();
    renderWithProviders(<VerifyDialog image={image} onClose={onClose} onVerified={onVerified} />);
    expect(screen.getByLabelText(/^Image sharing id/)).toHaveValue(image.sharingId);
    await user.type(screen.getByLabelText(/^Verification code/), '12a3456');
    expect(screen.getByLabelText(/^Verification code/)).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await vi.waitFor(() => expect(onVerified).toHaveBeenCalled());
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/sharing/verify');
    expect(JSON.parse(String(init?.body))).toEqual({ sharingRequestId: image.sharingId, verificationCode: '123456' });
    expect(onClose).toHaveBeenCalled();
  });

  it('shows a wrong code in a toast and keeps the dialog open', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>().mockResolvedValue(
        jsonResponse(400, {
          success: false,
          message: 'Invalid verification code',
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
    const fetchMock = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    renderWithProviders(<VerifyDialog image={pendingShare()} onClose={vi.fn()} onVerified={vi.fn()} />);
    await user.type(screen.getByLabelText(/^Verification code/), '123');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Enter the 6-digit code from the e-mail.')).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
