// A wrapper every call goes through (the seeds' ExternalClient): its own signal wins.
export async function callApi(path, init = {}) {
  return fetch(`https://wrapped.example.com/v1${path}`, { ...init, signal: AbortSignal.timeout(4000) });
}

export async function useIt() {
  await callApi('/a');
  return callApi('/b', { method: 'POST' });
}

// A function that calls a fixed URL is no wrapper: its own call is the call site.
export async function health() {
  return fetch('https://wrapped.example.com/health', { signal: AbortSignal.timeout(1000) });
}
export const h = () => health();
