import { act, render as renderInBody, screen } from '@testing-library/react';
import { type ReactElement, useRef, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useDropStaticCopyElsewhere, usePrerenderedForm } from './prerendered';
import { COPY_PATH, INTERACTED, STATIC_COPY_ID, SUBMIT_REQUESTED } from './static-page';

afterEach(() => {
  document.getElementById(STATIC_COPY_ID)?.remove();
  document.getElementById('root')?.remove();
});

/** Rendered into #root, as the app is (the focus goes back to the element at the same place there). */
const render = (ui: ReactElement) => {
  const root = Object.assign(document.createElement('div'), { id: 'root' });
  document.body.append(root);
  return renderInBody(ui, { container: root });
};
/** The take-over waits for the focus to have landed (a task later). */
const aTaskLater = () => act(() => new Promise((resolve) => setTimeout(resolve)));

/** The static copy of a sign-in form as web/build/prerender.ts serves it, in front of the app's root. */
function staticCopy({ email = '', password = '' } = {}) {
  const copy = document.createElement('div');
  copy.id = STATIC_COPY_ID;
  copy.dataset[COPY_PATH] = '/login';
  copy.innerHTML = `<form><input name="email" aria-label="Static email" value="${email}">
    <input name="password" type="password" aria-label="Static password" value="${password}">
    <button type="submit">Static login</button></form>`;
  document.body.prepend(copy);
  return copy;
}

function SignIn({ onSubmit }: { onSubmit: (values: { email: string; password: string }) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const form = useRef<HTMLFormElement>(null);
  usePrerenderedForm(form, { email: setEmail, password: setPassword });
  return (
    <form
      ref={form}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit({ email, password });
      }}
    >
      <input name="email" aria-label="Email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <input name="password" aria-label="Password" value={password} onChange={(e) => setPassword(e.target.value)} />
    </form>
  );
}

describe('the app taking over a static form (lib/prerendered.ts)', () => {
  it('takes over at once when the visitor has not touched the page, with what their browser filled in', () => {
    staticCopy({ email: 'ada@example.org', password: 'filled by a password manager' });
    const submitted = vi.fn();
    render(<SignIn onSubmit={submitted} />);
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.org');
    expect(screen.getByLabelText('Password')).toHaveValue('filled by a password manager');
    expect(submitted).not.toHaveBeenCalled();
  });

  it('moves the focus the static page had (its autofocus) to the same field of the app', () => {
    const copy = staticCopy({ email: 'ada@' });
    copy.querySelector<HTMLInputElement>('input[name="email"]')!.focus();
    render(<SignIn onSubmit={vi.fn()} />);
    expect(screen.getByLabelText('Email')).toHaveFocus();
    expect(screen.getByLabelText('Email')).toHaveValue('ada@');
  });

  it('submits what was typed when the static form was submitted before the app ran', () => {
    const copy = staticCopy({ email: 'ada@example.org', password: 'a long passphrase' });
    copy.dataset[INTERACTED] = 'true';
    copy.dataset[SUBMIT_REQUESTED] = 'true';
    copy.querySelector<HTMLInputElement>('input[name="password"]')!.focus();
    const submitted = vi.fn();
    render(<SignIn onSubmit={submitted} />);
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    expect(submitted).toHaveBeenCalledTimes(1);
    expect(submitted).toHaveBeenCalledWith({ email: 'ada@example.org', password: 'a long passphrase' });
  });

  it('waits while the visitor types in the static form, and takes over when the focus leaves it', async () => {
    const copy = staticCopy();
    copy.dataset[INTERACTED] = 'true';
    const email = copy.querySelector<HTMLInputElement>('input[name="email"]')!;
    email.focus();
    render(<SignIn onSubmit={vi.fn()} />);
    // Still theirs: the app rendered behind it and waits.
    expect(document.getElementById(STATIC_COPY_ID)).not.toBeNull();
    email.value = 'ada@example.org';
    // Moving on inside the copy (Tab to the password) keeps it.
    act(() => copy.querySelector<HTMLInputElement>('input[name="password"]')!.focus());
    expect(document.getElementById(STATIC_COPY_ID)).not.toBeNull();
    act(() => (document.activeElement as HTMLElement).blur());
    await aTaskLater();
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.org');
  });

  it('takes over at the submit when the visitor submits the static form after the app has come', () => {
    const copy = staticCopy();
    copy.dataset[INTERACTED] = 'true';
    const password = copy.querySelector<HTMLInputElement>('input[name="password"]')!;
    password.focus();
    const submitted = vi.fn();
    render(<SignIn onSubmit={submitted} />);
    password.value = 'typed after the app came';
    // What the boot script does with the browser's own submit (boot/static-page.ts).
    act(() => {
      copy.dataset[SUBMIT_REQUESTED] = 'true';
      copy.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    expect(submitted).toHaveBeenCalledWith({ email: '', password: 'typed after the app came' });
  });
});

describe('the app taking over a static copy while the visitor uses it', () => {
  function SignInWithButton() {
    const [email, setEmail] = useState('');
    const form = useRef<HTMLFormElement>(null);
    usePrerenderedForm(form, { email: setEmail });
    return (
      <form ref={form} onSubmit={(event) => event.preventDefault()}>
        <input name="email" aria-label="Email" value={email} onChange={(e) => setEmail(e.target.value)} />
        <button type="button">Show password</button>
      </form>
    );
  }
  const copyWithButton = () => {
    const copy = document.createElement('div');
    copy.id = STATIC_COPY_ID;
    copy.dataset[INTERACTED] = 'true';
    copy.innerHTML =
      '<form><input name="email" aria-label="Static email"><button type="button">Static show</button></form>';
    document.body.prepend(copy);
    return copy;
  };

  it('keeps the copy while a press on it is under way, and takes over once its click has been dispatched', async () => {
    const copy = copyWithButton();
    const email = copy.querySelector('input')!;
    email.focus();
    render(<SignInWithButton />);
    const button = copy.querySelector('button')!;
    // The press moves the focus from the field to the button: not yet, the click is still to come.
    act(() => {
      button.dispatchEvent(new Event('pointerdown', { bubbles: true }));
      button.focus();
    });
    await aTaskLater();
    expect(document.getElementById(STATIC_COPY_ID)).not.toBeNull();
    const clicked = vi.fn();
    button.addEventListener('click', clicked);
    act(() => {
      button.dispatchEvent(new Event('pointerup', { bubbles: true }));
      button.click();
    });
    expect(clicked).toHaveBeenCalledTimes(1);
    await aTaskLater();
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    // The focus is on the app's element in the same place.
    expect(screen.getByRole('button', { name: 'Show password' })).toHaveFocus();
  });

  it('takes over when the keyboard moves on from the fields, and puts the focus where it went', async () => {
    const copy = copyWithButton();
    copy.querySelector('input')!.focus();
    render(<SignInWithButton />);
    act(() => copy.querySelector('button')!.focus());
    await aTaskLater();
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
    expect(screen.getByRole('button', { name: 'Show password' })).toHaveFocus();
  });
});

describe('useDropStaticCopyElsewhere', () => {
  function Root({ path }: { path: string }) {
    useDropStaticCopyElsewhere(path);
    return null;
  }

  it('keeps the copy on the path it was built for and removes it on any other', () => {
    staticCopy();
    const { rerender } = render(<Root path="/login" />);
    expect(document.getElementById(STATIC_COPY_ID)).not.toBeNull();
    rerender(<Root path="/view-images" />);
    expect(document.getElementById(STATIC_COPY_ID)).toBeNull();
  });
});
