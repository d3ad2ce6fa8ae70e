import { afterEach, describe, expect, it } from 'vitest';
import { rememberReturnPath, takeReturnPath } from './return-path';

describe('the return path after signing in', () => {
  afterEach(() => window.sessionStorage.clear());

  it('gives the remembered path once, query included', () => {
    rememberReturnPath('/view-images?verify=66666666-6666-4666-8666-666666666666');
    expect(takeReturnPath()).toBe('/view-images?verify=66666666-6666-4666-8666-666666666666');
    expect(takeReturnPath()).toBeNull();
  });

  it('never keeps another origin', () => {
    for (const path of ['//evil.test/x', '/\\evil.test', 'https://evil.test/', 'javascript:alert(1)']) {
      rememberReturnPath(path);
      expect(takeReturnPath(), path).toBeNull();
    }
    window.sessionStorage.setItem('medshare.returnPath', JSON.stringify({ path: '//evil.test', at: Date.now() }));
    expect(takeReturnPath()).toBeNull();
  });

  it('forgets a wish older than half an hour, and a malformed one', () => {
    rememberReturnPath('/messages');
    expect(takeReturnPath(Date.now() + 31 * 60_000)).toBeNull();
    window.sessionStorage.setItem('medshare.returnPath', '{not json');
    expect(takeReturnPath()).toBeNull();
  });
});
