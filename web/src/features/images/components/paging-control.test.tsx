import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PagingControl } from './paging-control';

describe('PagingControl (docs/product.md › States and transitions)', () => {
  it("reads 'page / total' and disables first and previous on the first page", () => {
    render(<PagingControl page={1} totalPages={3} onChange={vi.fn()} />);
    expect(screen.getByText('1 / 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'First page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeEnabled();
  });

  it('disables next and last on the last page', () => {
    render(<PagingControl page={3} totalPages={3} onChange={vi.fn()} />);
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Last page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeEnabled();
  });

  it('moves one page at a time and jumps to the ends, only within 1..totalPages', async () => {
    const onChange = vi.fn();
    const user = userEvent.setup();
    render(<PagingControl page={2} totalPages={3} onChange={onChange} />);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    await user.click(screen.getByRole('button', { name: 'Last page' }));
    await user.click(screen.getByRole('button', { name: 'First page' }));
    expect(onChange.mock.calls.map((c) => c[0])).toEqual([3, 1, 3, 1]);
  });

  it('shows 1 / 1 with both directions disabled for an empty list', () => {
    render(<PagingControl page={1} totalPages={0} onChange={vi.fn()} />);
    expect(screen.getByText('1 / 1')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
  });

  it("reads 'page / total+' when the server counted only its list window", () => {
    render(<PagingControl page={1} totalPages={1000} capped onChange={vi.fn()} />);
    expect(screen.getByText('1 / 1000+')).toBeInTheDocument();
  });
});
