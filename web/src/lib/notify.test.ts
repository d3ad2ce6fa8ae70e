import { toast as toastify } from 'react-toastify/unstyled';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api-client';
import { dismissErrorToasts, toast, toastApiError } from './notify';

afterEach(() => {
  dismissErrorToasts();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('error toasts give way to success (issue 17)', () => {
  it('a success closes the error toasts still on screen, and only those', () => {
    const dismiss = vi.spyOn(toastify, 'dismiss');
    const wrong = toast.error('That code is wrong or has expired.');
    const notice = toast.warning('Your account is under review');
    toast.success('Account verified successfully!');
    expect(dismiss).toHaveBeenCalledWith(wrong);
    expect(dismiss).not.toHaveBeenCalledWith(notice);
    dismiss.mockClear();
    toast.success('Again');
    expect(dismiss).not.toHaveBeenCalled();
  });

  it('keeps errors younger than the grace a page change allows', () => {
    vi.useFakeTimers();
    const dismiss = vi.spyOn(toastify, 'dismiss');
    const old = toast.error('old');
    vi.advanceTimersByTime(3000);
    const fresh = toast.error('fresh');
    dismissErrorToasts(2500);
    expect(dismiss).toHaveBeenCalledWith(old);
    expect(dismiss).not.toHaveBeenCalledWith(fresh);
  });

  it('passes the texts and options through unchanged', () => {
    const error = vi.spyOn(toastify, 'error');
    const success = vi.spyOn(toastify, 'success');
    toast.error('Logout failed. Please try again.', { autoClose: 4000 });
    toast.success('Logged out successfully');
    expect(error).toHaveBeenCalledWith('Logout failed. Please try again.', { autoClose: 4000 });
    expect(success).toHaveBeenCalledWith('Logged out successfully', undefined);
  });
});

describe('toastApiError', () => {
  it('toasts each field error as a sentence', () => {
    const error = vi.spyOn(toast, 'error');
    toastApiError(
      new ApiError(
        400,
        'Validation failed',
        [{ field: 'token', code: 'too_small', message: 'Too small: expected string to have >=20 characters' }],
        'validation_failed',
      ),
      'Something went wrong in handleResetPassword',
      { position: 'bottom-left' },
    );
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]?.[0]).not.toMatch(/token:|Too small/);
    expect(error.mock.calls[0]?.[1]).toEqual({ position: 'bottom-left' });
  });

  it("falls back to the screen's wording when the server sent none", () => {
    const error = vi.spyOn(toast, 'error');
    toastApiError(new ApiError(0, ''), 'Something went wrong. from handleForgotPassword');
    expect(error).toHaveBeenCalledWith('Something went wrong. from handleForgotPassword', undefined);
  });
});
