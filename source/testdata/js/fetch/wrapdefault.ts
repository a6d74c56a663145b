export default async function request(url: string, init?: RequestInit) {
  return fetch(url, { ...init, signal: AbortSignal.timeout(1500) });
}
