import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../src/root';

/** A page at `path` inside the console's providers, with a fresh query cache (no retries). */
export function renderAt(path: string, routes: Array<{ path: string; element: ReactElement }>) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  return {
    router,
    ...render(
      <Providers client={client}>
        <RouterProvider router={router} />
      </Providers>,
    ),
  };
}

const parsedOrText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Replaces fetch with answers by method and path; returns the calls made. */
export function fakeApi(
  handler: (
    method: string,
    path: string,
    body: unknown,
  ) => { status: number; body?: unknown; headers?: Record<string, string> },
) {
  const calls: Array<{ method: string; path: string; body: unknown }> = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req =
      input instanceof Request ? input : new Request(new URL(String(input), 'http://localhost'), init);
    const url = new URL(req.url, 'http://localhost');
    const text = await req.text();
    // a JSON body parsed; any other (a multipart form) as its text
    const body = text ? parsedOrText(text) : undefined;
    calls.push({ method: req.method, path: url.pathname + url.search, body });
    const answer = handler(req.method, url.pathname + url.search, body);
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', ...answer.headers },
    });
  }) as typeof fetch;
  return calls;
}

export const apiError = (status: number, code: string, message: string, param: string | null = null) => ({
  status,
  body: { error: { message, type: 'invalid_request_error', code, param } },
});
