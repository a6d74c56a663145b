export default async function request(url: string, init?: RequestInit) {
  return fetch(url, { ...init, signal: AbortSignal.timeout(1500) });
}

export async function typed(url: string, init?: { timeout?: number }): Promise<Response> {
  const { timeout, ...rest } = init || {};
  return fetch(url, { ...rest, signal: AbortSignal.timeout(timeout ?? 2000) });
}
