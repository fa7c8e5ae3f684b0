import { screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../test/render';
import { KeysPage } from './keys/Keys';
import { LoginPage } from './Login';
import { NotFoundPage } from './NotFound';

beforeEach(() => {
  window.localStorage.clear();
  document.title = 'mediagate console';
});

describe('every page names itself', () => {
  it('has one h1 and a document title of its own, in the page language', async () => {
    window.localStorage.setItem('mediagate.lang', 'en');
    fakeApi(() => ({ status: 200, body: { object: 'list', data: [] } }));
    const keys = renderAt('/console/keys', [{ path: '/console/keys', element: <KeysPage /> }]);
    await waitFor(() => expect(document.title).toBe('API keys · mediagate'));
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['API keys']);
    keys.unmount();

    const missing = renderAt('/nowhere', [{ path: '/nowhere', element: <NotFoundPage /> }]);
    await waitFor(() => expect(document.title).toBe('Page not found · mediagate'));
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    missing.unmount();

    window.localStorage.setItem('mediagate.lang', 'zh');
    renderAt('/login', [{ path: '/login', element: <LoginPage /> }]);
    await waitFor(() => expect(document.title).toBe('登录 · mediagate'));
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
  });
});
